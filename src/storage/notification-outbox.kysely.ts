import type { Kysely } from 'kysely';
import type { NotificationOutbox, OutboxEvent } from '../domain/ports/store.js';
import type { Database } from './database.js';
import { deferrable } from './deferrable.js';
import { paymentCreatedAt } from './payment-created-at.js';
import { definedEntries, shaped } from './query-shapes.js';
import { toDbTime } from './rows.js';

/** Writes events into the `notification` table; the dispatcher (src/notifications/) delivers them. */
export class KyselyNotificationOutbox implements NotificationOutbox {
  /** `onDue` is called for every event enqueued with a target URL (PENDING), when its insert is queued. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly onDue?: () => void,
  ) {}

  async enqueue(event: OutboxEvent): Promise<void> {
    const row = {
      id: event.id,
      merchant_id: event.merchantId,
      pay_id: event.payId ?? null,
      type: event.type,
      payload: JSON.stringify(event.payload),
      target_url: event.targetUrl ?? null,
      status: event.targetUrl ? 'PENDING' : 'NO_TARGET',
      attempt_count: 0,
      next_attempt_at: toDbTime(event.createdAt),
      created_at: toDbTime(event.createdAt),
      delivered_at: null,
    };
    const { key, values } = definedEntries(row);
    // The payment's created_at leads the (payment_created_at, pay_id) index: NULL for an event without a payment.
    const query = shaped(this.db, `notification.enqueue ${key}`, [...values, row.pay_id], () =>
      this.db.insertInto('notification').values({ ...row, payment_created_at: paymentCreatedAt(row.pay_id) }),
    );
    // Deferrable: inside a transaction on SQLite it rides along with the unit's next statement or end.
    await this.db.executeQuery(deferrable(query));
    if (row.status === 'PENDING') this.onDue?.();
  }
}
