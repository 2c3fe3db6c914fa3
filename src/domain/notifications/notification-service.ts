import { KassaError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import type { Clock } from '../ports/clock.js';
import { isHexId } from '../ports/id-generator.js';
import type { Store } from '../ports/store.js';
import { type NotificationRecord, notificationTarget } from './notification.js';

/** The delivery log as the merchant API shows it (`GET /api/v1/notifications`). Times are ISO 8601 UTC. */
export interface NotificationDetails {
  id: string;
  type: string;
  payId?: string;
  status: NotificationRecord['status'];
  targetUrl?: string;
  attemptCount: number;
  nextAttemptAt?: string;
  creationDate: string;
  deliveredAt?: string;
  payload: Record<string, unknown>;
  attempts: { attemptNo: number; attemptedAt: string; durationMs: number; httpStatus?: number; error?: string }[];
}

/** Maps a stored notification onto its wire form. */
export function toNotificationDetails(n: NotificationRecord): NotificationDetails {
  return {
    id: n.id,
    type: n.type,
    payId: n.payId,
    status: n.status,
    targetUrl: n.targetUrl,
    attemptCount: n.attemptCount,
    nextAttemptAt: n.status === 'PENDING' ? n.nextAttemptAt?.toISOString() : undefined,
    creationDate: n.createdAt.toISOString(),
    deliveredAt: n.deliveredAt?.toISOString(),
    payload: n.payload,
    attempts: n.attempts.map((a) => ({
      attemptNo: a.attemptNo,
      attemptedAt: a.attemptedAt.toISOString(),
      durationMs: a.durationMs,
      httpStatus: a.httpStatus,
      error: a.error,
    })),
  };
}

/** The merchant's view of its notifications (DESIGN.md §4, §5): the delivery log and manual redelivery. */
export class NotificationService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * The outbox's backlog for operations metrics (DESIGN.md §9): events waiting for delivery, how long the oldest
   * has been due (seconds, 0 when none), and events that exhausted the retry schedule.
   */
  async backlog(): Promise<{ pending: number; oldestDueAgeSeconds: number; failed: number }> {
    const b = await this.store.notifications.backlog();
    const age = b.oldestDueAt ? (this.clock.now().getTime() - b.oldestDueAt.getTime()) / 1000 : 0;
    return { pending: b.pending, oldestDueAgeSeconds: Math.max(0, age), failed: b.failed };
  }

  /**
   * The notifications of one of the merchant's payments, oldest first, each with every delivery attempt.
   * @throws KassaError PAYMENT_NOT_FOUND for a missing payment and another merchant's payment alike.
   */
  async listByPayId(merchantId: string, payId: string): Promise<NotificationRecord[]> {
    const payment = isHexId(payId) ? await this.store.payments.findByPayId(merchantId, payId) : undefined;
    if (!payment) throw new KassaError('PAYMENT_NOT_FOUND', `no payment ${payId}`);
    return this.store.notifications.listByPayId(merchantId, payId);
  }

  /**
   * Queues one of the merchant's notifications again, whatever its state: due now, with a fresh retry schedule, to
   * where a new event of its payment would go now: the payment's `urls.webhook`, else the merchant's current default
   * webhook URL (so a merchant who corrected its URL can have past events sent there), else where it went before.
   * @throws KassaError NOTIFICATION_NOT_FOUND (missing or another merchant's), NOTIFICATION_NO_TARGET.
   */
  async redeliver(merchant: Merchant, id: string): Promise<NotificationRecord> {
    const found = await this.store.notifications.find(merchant.merchantId, id);
    if (!found) throw new KassaError('NOTIFICATION_NOT_FOUND', `no notification ${id}`);
    const payment = found.payId ? await this.store.payments.findByPayId(merchant.merchantId, found.payId) : undefined;
    const current = await this.store.merchants.find(merchant.merchantId);
    const targetUrl = notificationTarget(payment, current) ?? found.targetUrl;
    if (!targetUrl) {
      throw new KassaError('NOTIFICATION_NO_TARGET', 'set a default webhook URL for the merchant first');
    }
    await this.store.notifications.requeue(merchant.merchantId, id, targetUrl, this.clock.now());
    const queued = await this.store.notifications.find(merchant.merchantId, id);
    if (!queued) throw new KassaError('NOTIFICATION_NOT_FOUND', `no notification ${id}`);
    return queued;
  }
}
