/**
 * Row types of Kassa's tables (SQL snake_case, singular names). Separate from domain types and mapped explicitly
 * in each repository. Times are ISO 8601 UTC text with milliseconds (sortable, identical on both dialects);
 * JSON columns are text; booleans are 0/1 integers; money is integer minor units.
 */
export interface MerchantTable {
  merchant_id: string;
  name: string;
  country: string;
  currency: string;
  sandbox: number;
  webhook_url: string | null;
  webhook_secret: string;
  /** The secret `webhook_secret` replaced, sealed, still signing until the instant below (a rotation's overlap). */
  previous_webhook_secret: string | null;
  previous_webhook_secret_expires_at: string | null;
  surcharge: string | null;
  created_at: string;
}

export interface ApiKeyTable {
  key_id: string;
  merchant_id: string;
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface PaymentTable {
  pay_id: string;
  merchant_id: string;
  trans_id: string;
  ref_nr: string | null;
  status: string;
  response_code: string;
  currency: string;
  value: number;
  captured_value: number;
  refunded_value: number;
  surcharge_status: string;
  surcharge_reason: string;
  surcharge_value: number;
  surcharge_captured_value: number;
  surcharge_refunded_value: number;
  capture_method: string;
  integration_type: string;
  channel: string;
  language: string | null;
  card: string | null;
  three_ds: string | null;
  order_data: string | null;
  customer_info: string | null;
  urls: string | null;
  metadata: string | null;
  /** JSON text: InformationalFields (paygate-v2-wire.md §2). */
  informational: string | null;
  session_id: string | null;
  surcharge_consent: string | null;
  created_at: string;
  updated_at: string;
  /** DELAYED capture: when the sweep captures the payment (null: nothing scheduled). */
  capture_due_at: string | null;
  /** The DELAYED-capture sweep's lease on the payment. */
  capture_claimed_until: string | null;
}

export interface CheckoutSessionTable {
  session_id: string;
  merchant_id: string;
  trans_id: string;
  ref_nr: string | null;
  value: number;
  currency: string;
  capture_method: string;
  language: string | null;
  order_data: string | null;
  customer_info: string | null;
  urls: string;
  metadata: string | null;
  /** JSON text: InformationalFields (paygate-v2-wire.md §2). */
  informational: string | null;
  status: string;
  pay_id: string | null;
  expires_at: string;
  created_at: string;
  /** Card tries (payments) the session started (migration 2026-11-23-0301). */
  card_tries: number;
}

export interface PaymentOperationTable {
  x_id: string;
  pay_id: string;
  /** 1, 2, … in the order the operations happened. */
  seq: number;
  type: string;
  ref_nr: string | null;
  /** The merchant's transId of the operation (null on rows written before it was kept). */
  trans_id: string | null;
  value: number;
  surcharge_value: number;
  /** OK, FAILED, or PENDING while the acquirer's answer is outstanding (write-ahead follow-ups). */
  status: string;
  response_code: string;
  created_at: string;
  /** 1: a capture sent as the final one (Paygate `finishAuth: "Y"`). */
  final_capture: number | null;
  /** The recovery sweep's lease on a PENDING operation. */
  claimed_until: string | null;
  /** Follow-ups: the Idempotency-Key of the request that created the operation. */
  request_key: string | null;
  /**
   * The payment's `created_at`, first column of the (payment_created_at, pay_id, seq) index: a new payment's
   * operations go to the newest leaves (migration 2026-11-26-0001). Written from the payment row by pay_id; never
   * NULL (NOT NULL on PostgreSQL; SQLite cannot add the constraint to an existing table), so every insert must give it.
   */
  payment_created_at: string;
}

export interface IdempotencyKeyTable {
  merchant_id: string;
  idem_key: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  created_at: string;
}

export interface NotificationTable {
  id: string;
  merchant_id: string;
  pay_id: string | null;
  type: string;
  payload: string;
  target_url: string | null;
  status: string;
  attempt_count: number;
  next_attempt_at: string;
  created_at: string;
  delivered_at: string | null;
  /** A dispatcher's claim lease (migration 0002); NULL when not claimed. */
  locked_until: string | null;
  /** The payment's `created_at` (NULL without a payment): the (payment_created_at, pay_id) index's first column. */
  payment_created_at: string | null;
}

/** Notification delivery attempts (migration 0002). */
export interface NotificationAttemptTable {
  notification_id: string;
  /** 1, 2, … per notification. */
  attempt_no: number;
  attempted_at: string;
  /** Milliseconds. */
  duration_ms: number;
  http_status: number | null;
  error: string | null;
}

/** Support-desk changes to a merchant's surcharge settings (migration 0003). */
export interface SurchargeAuditTable {
  merchant_id: string;
  /** 1, 2, … per merchant. */
  seq: number;
  /** ENABLE | DISABLE */
  action: string;
  actor: string;
  /** SurchargeSettings as JSON. */
  settings_before: string;
  settings_after: string;
  created_at: string;
}

/** Encrypted card data between the card step or AReq and authorization (migration 0004). */
export interface PendingCardTable {
  pay_id: string;
  /** Which key derivation encrypted the row (`v1`: HKDF-SHA256(dataKey, info "kassa/card-vault/v1")). */
  key_version: string;
  /** 96-bit GCM nonce, fresh per row. */
  iv: string;
  ciphertext: string;
  /** 128-bit GCM tag. */
  tag: string;
  expires_at: string;
}

/** Per-payment 3-D Secure state (migration 0004). */
export interface ThreeDSTransactionTable {
  pay_id: string;
  merchant_id: string;
  phase: string;
  three_ds_method_url: string | null;
  method_status: string;
  method_started_at: string | null;
  three_ds_comp_ind: string | null;
  acs_trans_id: string | null;
  ds_trans_id: string | null;
  acs_url: string | null;
  message_version: string | null;
  challenge_window_size: string | null;
  creq: string | null;
  authentication: string | null;
  redirect_nonce: string;
  redirect_expires_at: string;
  created_at: string;
  updated_at: string;
}

/** A data-encryption key of the card vault (migration 2026-11-23-0001). */
export interface CardKeyTable {
  key_id: number;
  /** `iv.ciphertext.tag` (base64) of the 256-bit key under the key-encryption key; '' once retired (erased). */
  wrapped_key: string;
  created_at: string;
  retired_at: string | null;
}

/** A stored credential (migration 2026-11-23-0001). The PAN only inside `ciphertext` (AES-256-GCM under `key_id`). */
export interface StoredCardTable {
  merchant_id: string;
  pseudo_card_number: string;
  /** HMAC-SHA256 of the PAN under the data key, hex. */
  fingerprint: string;
  /** ACTIVE | DELETED */
  status: string;
  /** NULL once deleted (ciphertext erased). */
  key_id: number | null;
  iv: string | null;
  ciphertext: string | null;
  tag: string | null;
  brand: string;
  bin: string;
  last4: string;
  expiry_date: string;
  /** RECURRING | UNSCHEDULED | INSTALLMENTS */
  credential_type: string;
  scheme_reference_id: string | null;
  initial_pay_id: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** Shared rate-limit counters (migration 2026-11-23-0003). */
export interface RateLimitCounterTable {
  key: string;
  count: number;
  /** End of the current window, Unix ms (bigint: PostgreSQL returns it as text). */
  reset_at: number | string;
}

/** The credentials epoch (one row, id 1): bumped by triggers on every change to api_key or merchant rows. */
export interface AuthEpochTable {
  id: number;
  epoch: number;
}

export interface Database {
  auth_epoch: AuthEpochTable;
  rate_limit_counter: RateLimitCounterTable;
  card_key: CardKeyTable;
  stored_card: StoredCardTable;
  notification_attempt: NotificationAttemptTable;
  surcharge_audit: SurchargeAuditTable;
  pending_card: PendingCardTable;
  three_ds_transaction: ThreeDSTransactionTable;
  checkout_session: CheckoutSessionTable;
  merchant: MerchantTable;
  api_key: ApiKeyTable;
  payment: PaymentTable;
  payment_operation: PaymentOperationTable;
  idempotency_key: IdempotencyKeyTable;
  notification: NotificationTable;
}
