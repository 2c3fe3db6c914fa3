import { type Kysely, SqliteAdapter, sql } from 'kysely';
import type { PaymentOperation } from '../domain/payments/payment.js';
import type { ClaimedFollowUp, FollowUpOperationRepository } from '../domain/ports/store.js';
import type { Database } from './database.js';
import { paymentCreatedAt } from './payment-created-at.js';
import { operationToRow } from './payment-repository.kysely.js';
import { shaped } from './query-shapes.js';
import { toDbTime } from './rows.js';

/**
 * Write-ahead follow-up operations and DELAYED captures over Kysely. Claims are one `UPDATE … WHERE key IN (due keys)
 * RETURNING`: on PostgreSQL the due keys are selected `FOR UPDATE SKIP LOCKED`, so sweeps on many nodes split the work
 * without waiting on each other; SQLite has one writer, which makes the statement a claim by itself.
 */
export class KyselyFollowUpOperationRepository implements FollowUpOperationRepository {
  private readonly sqlite: boolean;

  constructor(private readonly db: Kysely<Database>) {
    this.sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  }

  async reserve(payId: string, op: PaymentOperation): Promise<void> {
    const lastSeq = shaped(this.db, 'payment_operation.lastSeq', [payId, payId], () =>
      this.db
        .selectFrom('payment_operation')
        .select((eb) => eb.fn.max('seq').as('seq'))
        .where('payment_created_at', '=', paymentCreatedAt(payId))
        .where('pay_id', '=', payId),
    );
    const last = (await this.db.executeQuery(lastSeq)).rows[0] as { seq: number | null } | undefined;
    // Every column is given (NULL when absent): one query shape. payment_created_at is a subquery on payId.
    const row = {
      ...operationToRow(payId, Number(last?.seq ?? 0) + 1, op),
      final_capture: op.finalCapture ? 1 : null,
      request_key: op.requestKey ?? null,
    };
    const insert = shaped(this.db, 'payment_operation.reserve', [...Object.values(row), payId], () =>
      this.db.insertInto('payment_operation').values({ ...row, payment_created_at: paymentCreatedAt(payId) }),
    );
    await this.db.executeQuery(insert);
  }

  async complete(xId: string, status: 'OK' | 'FAILED', responseCode: string): Promise<boolean> {
    const query = shaped(this.db, 'payment_operation.complete', [status, responseCode, null, xId, 'PENDING'], () =>
      this.db
        .updateTable('payment_operation')
        .set({ status, response_code: responseCode, claimed_until: null })
        .where('x_id', '=', xId)
        .where('status', '=', 'PENDING'),
    );
    const result = await this.db.executeQuery(query);
    return Number(result.numAffectedRows) === 1;
  }

  async claimPending(before: Date, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedFollowUp[]> {
    const at = toDbTime(now);
    const due = this.db
      .selectFrom('payment_operation')
      .select('x_id')
      // A literal, as the partial index's condition names it (migration 2026-11-27-0001).
      .where('status', '=', sql.lit('PENDING'))
      .where('created_at', '<', toDbTime(before))
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', at)]))
      .orderBy('created_at')
      .limit(limit);
    const claimed = await this.db
      .updateTable('payment_operation')
      .set({ claimed_until: toDbTime(leaseUntil) })
      .where('x_id', 'in', this.sqlite ? due : due.forUpdate().skipLocked())
      .returning(['x_id', 'pay_id'])
      .execute();
    if (claimed.length === 0) return [];
    const owners = await this.db
      .selectFrom('payment')
      .select(['pay_id', 'merchant_id'])
      .where(
        'pay_id',
        'in',
        claimed.map((r) => r.pay_id),
      )
      .execute();
    const merchantOf = new Map(owners.map((o) => [o.pay_id, o.merchant_id]));
    return claimed.flatMap((r) => {
      const merchantId = merchantOf.get(r.pay_id);
      return merchantId === undefined ? [] : [{ xId: r.x_id, payId: r.pay_id, merchantId }];
    });
  }

  async scheduleCapture(payId: string, dueAt: Date | undefined): Promise<void> {
    await this.db
      .updateTable('payment')
      .set({ capture_due_at: dueAt === undefined ? null : toDbTime(dueAt), capture_claimed_until: null })
      .where('pay_id', '=', payId)
      .execute();
  }

  async claimDueCaptures(now: Date, leaseUntil: Date, limit: number): Promise<{ payId: string; merchantId: string }[]> {
    const at = toDbTime(now);
    const due = this.db
      .selectFrom('payment')
      .select('pay_id')
      .where('capture_due_at', '<=', at)
      .where((eb) => eb.or([eb('capture_claimed_until', 'is', null), eb('capture_claimed_until', '<=', at)]))
      .orderBy('capture_due_at')
      .limit(limit);
    const rows = await this.db
      .updateTable('payment')
      .set({ capture_claimed_until: toDbTime(leaseUntil) })
      .where('pay_id', 'in', this.sqlite ? due : due.forUpdate().skipLocked())
      .returning(['pay_id', 'merchant_id'])
      .execute();
    return rows.map((r) => ({ payId: r.pay_id, merchantId: r.merchant_id }));
  }
}
