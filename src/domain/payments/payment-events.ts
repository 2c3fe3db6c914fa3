import type { Merchant } from '../merchants/merchant.js';
import { notificationTarget } from '../notifications/notification.js';
import type { Clock } from '../ports/clock.js';
import { type IdGenerator, newHexId } from '../ports/id-generator.js';
import type { Store } from '../ports/store.js';
import type { Payment } from './payment.js';
import { EVENT_API_PREFIX, toPaymentDetails } from './payment-details.js';

/** The payment.* notification events (DESIGN.md §5). */
export type PaymentEventType =
  | 'payment.authorized'
  | 'payment.captured'
  | 'payment.failed'
  | 'payment.refunded'
  | 'payment.reversed';

/** What enqueueing a payment event needs: time, ids and Kassa's public base URL (for `_links`). */
export interface PaymentEventDeps {
  clock: Clock;
  ids: IdGenerator;
  /** Kassa's public https base URL, without a trailing slash. */
  publicUrl: string;
}

/**
 * Writes a payment.* event to the transactional outbox (DESIGN.md §1, §5): body = payment details plus `type`,
 * target = the payment's webhook URL, else the merchant's. Call it with the `tx` store of the transaction that
 * changes the payment, so that the change and its event commit together.
 */
export async function enqueuePaymentEvent(
  tx: Store,
  deps: PaymentEventDeps,
  merchant: Merchant,
  payment: Payment,
  type: PaymentEventType,
): Promise<void> {
  const now = deps.clock.now();
  await tx.outbox.enqueue({
    id: `msg_${newHexId(deps.ids)}`,
    merchantId: merchant.merchantId,
    payId: payment.payId,
    type,
    payload: { type, ...toPaymentDetails(payment, `${deps.publicUrl}${EVENT_API_PREFIX}`) },
    targetUrl: notificationTarget(payment, merchant),
    createdAt: now,
  });
}
