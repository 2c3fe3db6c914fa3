import type { ApiKeyRecord, Merchant } from '../merchants/merchant.js';
import type { AttemptRecord, ClaimedNotification, NotificationRecord } from '../notifications/notification.js';
import type { Payment, PaymentOperation } from '../payments/payment.js';
import type { CheckoutSession } from '../sessions/checkout-session.js';
import type { SurchargeAuditEntry, SurchargeSettings } from '../surcharge/surcharge-settings.js';
import type { ThreeDSTransactionRepository } from '../threeds/three-ds-transaction.js';
import type { SealedCard } from './card-vault.js';

/** Merchant profiles. */
export interface MerchantRepository {
  /** @returns false when the merchantId exists already. */
  insert(merchant: Merchant): Promise<boolean>;
  find(merchantId: string): Promise<Merchant | undefined>;
  count(): Promise<number>;
  setWebhookUrl(merchantId: string, url: string | undefined): Promise<boolean>;
  /**
   * Makes `secret` the merchant's webhook secret. The one it replaces keeps signing until `previousExpiresAt`
   * (undefined: it stops at once); a previous secret kept by an earlier rotation is dropped. One statement, so two
   * rotations at once cannot lose the secret in force. @returns false when there is no such merchant.
   */
  rotateWebhookSecret(merchantId: string, secret: string, previousExpiresAt: Date | undefined): Promise<boolean>;
}

/** API keys, looked up by hash. */
export interface ApiKeyRepository {
  insert(key: ApiKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  find(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** @returns false when the merchant has no such (unrevoked) key. */
  revoke(merchantId: string, keyId: string, at: Date): Promise<boolean>;
  /** Every key of the merchant, revoked ones included, oldest first. */
  listByMerchant(merchantId: string): Promise<ApiKeyRecord[]>;
}

/** Payments and their operations. Every read names the merchant (tenant) it reads for. */
export interface PaymentRepository {
  /**
   * Stores a new payment with its operations.
   * @returns 'TRANS_ID_IN_USE' when a payment of this merchant with this transId exists that has not FAILED.
   */
  insert(payment: Payment): Promise<'OK' | 'TRANS_ID_IN_USE'>;
  /** Writes the payment's mutable fields and inserts operations not stored yet (by xId). */
  update(payment: Payment): Promise<void>;
  findByPayId(merchantId: string, payId: string): Promise<Payment | undefined>;
  /** A payment by payId alone: only for hosted pages reached through a signed link, which names no merchant. */
  findByPayIdAnyMerchant(payId: string): Promise<Payment | undefined>;
  /**
   * Like findByPayId, and locks the payment row until the surrounding transaction ends (PostgreSQL
   * `select … for update`; SQLite serialises whole transactions), so that concurrent follow-ups on one payment run
   * one after another. Call it inside `Store.transaction`.
   */
  findByPayIdForUpdate(merchantId: string, payId: string): Promise<Payment | undefined>;
  /**
   * HOSTED payments still waiting on Kassa's card step (PENDING, responseCode 60040001) created before `before`,
   * oldest first, at most `limit` (the expiry sweep).
   */
  findWaitingHostedCreatedBefore(before: Date, limit: number): Promise<Payment[]>;
  /**
   * Payments whose authorization is in flight — PENDING with responseCode 60000001 or 60020001 — last updated before
   * `before`, oldest first, at most `limit` (AuthorizationRecovery: those a request left behind).
   */
  findProcessingUpdatedBefore(before: Date, limit: number): Promise<Payment[]>;
  /** The latest payment (by creation time) of this merchant with this transId. */
  findLatestByTransId(merchantId: string, transId: string): Promise<Payment | undefined>;
  /** Appends operations to an existing payment. */
  insertOperations(payId: string, operations: PaymentOperation[]): Promise<void>;
}

/** A PENDING follow-up claimed by the recovery sweep (`follow-up-recovery.ts`). */
export interface ClaimedFollowUp {
  xId: string;
  payId: string;
  merchantId: string;
}

/**
 * The rows of the CardVault (ports/card-vault.ts) as part of a store transaction: removing a payment's card needs no
 * key, so the transaction that ends the payment removes it too (issue 12: no statement of its own after the result;
 * and no window in which a final payment still has a card kept).
 */
export interface PendingCardRepository {
  /** Removes the card kept for a payment's 3-D Secure steps; a no-op when there is none. */
  delete(payId: string): Promise<void>;
  /**
   * Stores (or replaces) a payment's card sealed by CardVault.seal, in the transaction: the hosted card step writes
   * it with the payment row that names the card, so two card-step posts at once cannot leave the row naming one card
   * and the vault holding the other.
   */
  put(card: SealedCard): Promise<void>;
}

/**
 * Write-ahead follow-ups (issue 9 defect 3) and scheduled DELAYED captures. Claims are safe on every node at once:
 * PostgreSQL `FOR UPDATE SKIP LOCKED`, SQLite's single writer; a claim is a lease that expires, so a node that dies
 * while holding one delays the work, never loses it.
 */
export interface FollowUpOperationRepository {
  /**
   * Appends a PENDING operation to the payment, numbered after its last. Call it inside `Store.transaction` after
   * `PaymentRepository.findByPayIdForUpdate`, so that the reservation is decided and written under the row lock.
   */
  reserve(payId: string, operation: PaymentOperation): Promise<void>;
  /**
   * Records the acquirer's answer on a PENDING operation and drops its claim.
   * @returns false when the operation was not PENDING any more (completed elsewhere).
   */
  complete(xId: string, status: 'OK' | 'FAILED', responseCode: string): Promise<boolean>;
  /**
   * Claims up to `limit` PENDING operations created before `before` whose earlier claim (if any) has expired at
   * `now`, until `leaseUntil`. Concurrent sweeps never claim the same operation.
   */
  claimPending(before: Date, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedFollowUp[]>;
  /** Sets when a DELAYED payment is captured automatically; `undefined` cancels it (captured or reversed before). */
  scheduleCapture(payId: string, dueAt: Date | undefined): Promise<void>;
  /**
   * Claims up to `limit` payments whose scheduled capture is due at `now` and not claimed (or the claim expired),
   * until `leaseUntil`. Concurrent sweeps never claim the same payment.
   */
  claimDueCaptures(now: Date, leaseUntil: Date, limit: number): Promise<{ payId: string; merchantId: string }[]>;
}

/** A stored idempotent request (DESIGN.md §4, IETF draft-ietf-httpapi-idempotency-key-header). */
export interface IdempotencyRecord {
  requestHash: string;
  state: 'IN_FLIGHT' | 'DONE';
  responseStatus?: number;
  responseBody?: string;
  creationDate: Date;
}

export interface IdempotencyRepository {
  /** Claims the key. @returns undefined when claimed now, else the record already there. */
  claim(merchantId: string, key: string, requestHash: string, now: Date): Promise<IdempotencyRecord | undefined>;
  complete(merchantId: string, key: string, status: number, body: string): Promise<void>;
  /** Forgets a claim, so that a request that failed for a transient reason may be retried with the same key. */
  release(merchantId: string, key: string): Promise<void>;
  /** Replaces a claim older than `olderThan` (expired or abandoned). @returns true when it did. */
  reclaimIfOlder(merchantId: string, key: string, requestHash: string, olderThan: Date, now: Date): Promise<boolean>;
}

/** An event to deliver to a merchant (DESIGN.md §5), written to the outbox with the state change that caused it. */
export interface OutboxEvent {
  /** Unique; becomes the Standard Webhooks `webhook-id`. */
  id: string;
  merchantId: string;
  payId?: string;
  /** `authentication` or `payment.*`. */
  type: string;
  payload: Record<string, unknown>;
  /** Target URL fixed at enqueue time; undefined when neither the payment nor the merchant has one. */
  targetUrl?: string;
  createdAt: Date;
}

/** The transactional outbox. */
export interface NotificationOutbox {
  enqueue(event: OutboxEvent): Promise<void>;
}

/**
 * A merchant's surcharge settings (the `merchant.surcharge` JSON column) and their audit log (DESIGN.md §7).
 * A settings change and its audit entry are written in one `Store.transaction`.
 */
export interface SurchargeSettingsRepository {
  /**
   * The merchant's settings: undefined when there is no such merchant; `settings` undefined when never configured.
   * With `forUpdate`, locks the merchant row until the surrounding transaction ends, so that concurrent changes to
   * one merchant run one after another and each audit entry's `before` is what the change replaced.
   */
  get(
    merchantId: string,
    options?: { forUpdate?: boolean },
  ): Promise<{ settings: SurchargeSettings | undefined } | undefined>;
  /** Replaces the merchant's settings. @returns false when there is no such merchant. */
  set(merchantId: string, settings: SurchargeSettings): Promise<boolean>;
  /** Appends an audit entry with the merchant's next `seq` (1, 2, …) and returns it. */
  appendAudit(entry: Omit<SurchargeAuditEntry, 'seq'>): Promise<SurchargeAuditEntry>;
  /** The merchant's audit entries, oldest first. */
  listAudit(merchantId: string): Promise<SurchargeAuditEntry[]>;
}

/**
 * The delivery side of the outbox (DESIGN.md §5): the merchant's delivery log, manual redelivery, and the claims
 * and attempt records of the dispatchers. Every merchant-facing read names the merchant (tenant).
 */
export interface NotificationRepository {
  /** The merchant's notifications of one payment, oldest first, each with its attempts. */
  listByPayId(merchantId: string, payId: string): Promise<NotificationRecord[]>;
  /** One of the merchant's notifications, with its attempts; undefined for a missing one and another's alike. */
  find(merchantId: string, id: string): Promise<NotificationRecord | undefined>;
  /** The outbox's backlog across merchants (operations metrics): events waiting, the oldest one's due time, FAILED. */
  backlog(): Promise<{ pending: number; oldestDueAt?: Date; failed: number }>;
  /**
   * Queues the notification again: PENDING, due at `now`, a fresh retry schedule, `targetUrl` as given.
   * @returns false when the merchant has no such notification.
   */
  requeue(merchantId: string, id: string, targetUrl: string, now: Date): Promise<boolean>;
  /**
   * Claims up to `limit` PENDING notifications due at `now` whose earlier claim (if any) has expired, until
   * `leaseUntil`. Concurrent dispatchers never claim the same notification (PostgreSQL `FOR UPDATE SKIP LOCKED`,
   * SQLite's single writer).
   */
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedNotification[]>;
  /**
   * Puts claimed notifications back unattempted, due again at `until` (the dispatcher's fairness rule: a struggling
   * merchant's notifications wait while one of its deliveries is in flight). A claim taken over meanwhile (its lease
   * expired) is left alone. No attempt is logged and the attempt count is unchanged.
   */
  defer(claims: readonly ClaimedNotification[], until: Date): Promise<void>;
  /**
   * Logs attempts (each numbered after its notification's last one) and, for each claim that still holds (not
   * requeued meanwhile), applies its outcome and releases the claim. One transaction for the whole batch, so that
   * many deliveries share one durable commit.
   */
  recordAttempts(records: AttemptRecord[]): Promise<void>;
  /**
   * Deletes up to `limit` finished notifications — DELIVERED, FAILED (retries given up) or NO_TARGET — whose last
   * activity (delivery, else last due time) is before `before`, with their attempts. Safe on every node at once.
   * @returns how many it deleted.
   */
  pruneFinished(before: Date, limit: number): Promise<number>;
}

/** Hosted payment page sessions. Reads by sessionId come from signed links; API reads name the merchant. */
export interface CheckoutSessionRepository {
  insert(session: CheckoutSession): Promise<void>;
  find(sessionId: string): Promise<CheckoutSession | undefined>;
  /**
   * `find` holding the session's row lock until the transaction ends (PostgreSQL `FOR UPDATE`; SQLite's transactions
   * run one at a time): two requests starting or cancelling one session's try take turns.
   */
  findForUpdate(sessionId: string): Promise<CheckoutSession | undefined>;
  update(session: Pick<CheckoutSession, 'sessionId' | 'status' | 'payId' | 'cardTries'>): Promise<void>;
}

/** All repositories over one connection or transaction. */
export interface Store {
  merchants: MerchantRepository;
  apiKeys: ApiKeyRepository;
  payments: PaymentRepository;
  idempotency: IdempotencyRepository;
  outbox: NotificationOutbox;
  checkoutSessions: CheckoutSessionRepository;
  notifications: NotificationRepository;
  surchargeSettings: SurchargeSettingsRepository;
  /** Per-payment 3-D Secure state between AReq and final result (challenge, decoupled, 3DS Method). */
  threeDSTransactions: ThreeDSTransactionRepository;
  /** Write-ahead follow-up operations and scheduled DELAYED captures. */
  followUpOperations: FollowUpOperationRepository;
  /** The cards kept between AReq and 3-D Secure result (read and written, encrypted, through the CardVault). */
  pendingCards: PendingCardRepository;
  /** Runs `work` in one database transaction; every repository of the `tx` store uses it. Rolls back on throw. */
  transaction<T>(work: (tx: Store) => Promise<T>): Promise<T>;
}
