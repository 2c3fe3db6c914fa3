/**
 * Notifications as stored in the outbox and shown in the delivery log (DESIGN.md §5). Event types and payloads are
 * built by the operations that cause them (payment-events.ts, authorize-payment.ts); this file holds what delivery
 * needs.
 */

import type { Merchant } from '../merchants/merchant.js';
import type { Payment } from '../payments/payment.js';

/**
 * Where a payment's notification goes (DESIGN.md §5): the payment's `urls.webhook`, else the merchant's default
 * webhook URL; undefined when neither is set (the notification waits as NO_TARGET).
 */
export function notificationTarget(
  payment: Pick<Payment, 'urls'> | undefined,
  merchant: Pick<Merchant, 'webhookUrl'> | undefined,
): string | undefined {
  return payment?.urls?.webhook ?? merchant?.webhookUrl;
}

/**
 * PENDING: waiting for its next attempt; DELIVERED: a 2xx arrived within the timeout; FAILED: every attempt of the
 * retry schedule failed; NO_TARGET: neither the payment nor the merchant had a webhook URL when it was written.
 */
export type NotificationStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'NO_TARGET';

/** One delivery attempt: when, how long (ms), and the HTTP status or the network error (one of the two). */
export interface DeliveryAttempt {
  /** 1, 2, … per notification; a redelivery continues the count. */
  attemptNo: number;
  attemptedAt: Date;
  /** Wall time from connecting to the end of the answer (or the failure), in milliseconds. */
  durationMs: number;
  httpStatus?: number;
  /** Network error, timeout or SSRF refusal, in words. */
  error?: string;
}

/** A notification with its delivery log. */
export interface NotificationRecord {
  /** `msg_…`, the Standard Webhooks `webhook-id`. */
  id: string;
  merchantId: string;
  payId?: string;
  type: string;
  payload: Record<string, unknown>;
  targetUrl?: string;
  status: NotificationStatus;
  /** Attempts of the current schedule (a redelivery starts a new schedule). */
  attemptCount: number;
  /** Only while PENDING. */
  nextAttemptAt?: Date;
  createdAt: Date;
  deliveredAt?: Date;
  /** Oldest first. */
  attempts: DeliveryAttempt[];
}

/** A due notification claimed by one dispatcher until `leaseUntil`, with what it needs to sign and send it. */
export interface ClaimedNotification {
  id: string;
  merchantId: string;
  type: string;
  /** The stored JSON text: signed and sent byte for byte. */
  body: string;
  targetUrl: string;
  attemptCount: number;
  createdAt: Date;
  /** The claim expires then; another dispatcher may take the notification over (crash recovery). */
  leaseUntil: Date;
  /** The merchant's Standard Webhooks secret (`whsec_…`). */
  webhookSecret: string;
  /** The secret a rotation replaced, while its overlap lasts: the attempt is signed under both (Merchant). */
  previousWebhookSecret?: string;
  /** Sandbox merchants may target http and non-public addresses (DESIGN.md §5). */
  sandbox: boolean;
}

/** What an attempt leads to. */
export type AttemptOutcome =
  | { status: 'DELIVERED' }
  | { status: 'PENDING'; nextAttemptAt: Date }
  | { status: 'FAILED' };

/** One finished attempt of a claimed notification, to record. */
export interface AttemptRecord {
  claim: ClaimedNotification;
  attempt: Omit<DeliveryAttempt, 'attemptNo'>;
  outcome: AttemptOutcome;
}
