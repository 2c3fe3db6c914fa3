/**
 * Payment locality (issue 12, migration 2026-11-26-0001): a payment's operations and notifications are indexed by the
 * payment's creation time first, (payment_created_at, pay_id[, seq]), so a new payment's index entries go to the
 * newest leaves instead of a random leaf each (payId is a random UUID). What must hold: every such row carries its
 * payment's `created_at`, whichever statement wrote it, and every statement that reaches them by payId goes through
 * the new indexes instead of scanning the table.
 */
import { CompiledQuery, DefaultQueryCompiler, Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Merchant } from '../../src/domain/merchants/merchant.js';
import type { NotificationRecord } from '../../src/domain/notifications/notification.js';
import type { Payment } from '../../src/domain/payments/payment.js';
import { migrateToLatest } from '../../src/storage/create-db.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { directCommand } from '../domain/threeds/three-ds-fixtures.js';
import { DIALECTS } from '../helpers/dialects.js';
import { type ServiceHarness, startServiceHarness } from '../helpers/service-harness.js';

describe.each(DIALECTS)('payment locality (%s)', (dialect) => {
  let h: ServiceHarness;
  let merchant: Merchant;
  /**
   * The first payment's life, made before any test under a spy on Kysely's compiler: the SQL text of every statement
   * Kassa compiled for it (each query shape is compiled once per process, so only the first use shows), and what the
   * services read back.
   */
  let first: { payId: string; compiled: string[]; read: Payment; log: NotificationRecord[] };

  /** A MANUAL payment, captured in two parts and refunded once: operations from the result write and from follow-ups. */
  /** The stored payment's `created_at`, read back. */
  const storedCreatedAt = async (payId: string): Promise<string> =>
    (
      await h.database.db.kysely
        .selectFrom('payment')
        .select('created_at')
        .where('pay_id', '=', payId)
        .executeTakeFirstOrThrow()
    ).created_at;

  async function paymentWithFollowUps(transId: string) {
    const p = await h.services.payments.createDirectPayment(
      merchant,
      directCommand(merchant.merchantId, { transId, captureMethod: 'MANUAL' }),
    );
    expect(p.status).toBe('AUTHORIZED');
    const amount = (value: number) => ({ value, currency: 'DKK' });
    await h.services.followUps.capture(merchant, p.payId, { transId, amount: amount(6_000) });
    await h.services.followUps.capture(merchant, p.payId, { transId, amount: amount(6_500) });
    await h.services.followUps.refund(merchant, p.payId, { transId, amount: amount(1_000) });
    return p;
  }

  beforeAll(async () => {
    h = await startServiceHarness(dialect, { merchantId: `loc_${dialect}`, webhookUrl: 'https://shop.example/hook' });
    merchant = h.merchant;
    const spy = vi.spyOn(DefaultQueryCompiler.prototype, 'compileQuery');
    try {
      const p = await paymentWithFollowUps('loc-1');
      // Operations appended after a reload as well (insertOperations: the payment row read first).
      await h.store.payments.insertOperations(p.payId, [
        {
          xId: `ff${p.payId.slice(2)}`,
          type: 'REFUND',
          value: 500,
          surchargeValue: 0,
          status: 'OK',
          responseCode: '00000000',
          creationDate: new Date(),
        },
      ]);
      // Read back through the new indexes: the lookup, the delivery log.
      const read = await h.services.payments.getByPayId(merchant.merchantId, p.payId);
      const log = await h.services.notifications.listByPayId(merchant.merchantId, p.payId);
      first = { payId: p.payId, compiled: spy.mock.results.map((r) => (r.value as CompiledQuery).sql), read, log };
    } finally {
      spy.mockRestore();
    }
  });
  afterAll(async () => h?.close());

  it("every operation and notification row of a payment carries the payment's created_at", async () => {
    const p = first;
    const kysely = h.database.db.kysely;
    const createdAt = await storedCreatedAt(p.payId);
    const ops = await kysely
      .selectFrom('payment_operation')
      .select(['type', 'seq', 'payment_created_at'])
      .where('pay_id', '=', p.payId)
      .orderBy('seq')
      .execute();
    expect(ops.map((o) => [o.type, Number(o.seq)])).toEqual([
      ['AUTHORIZATION', 1],
      ['CAPTURE', 2],
      ['CAPTURE', 3],
      ['REFUND', 4],
      ['REFUND', 5],
    ]);
    expect(new Set(ops.map((o) => o.payment_created_at))).toEqual(new Set([createdAt]));
    const notifications = await kysely
      .selectFrom('notification')
      .select(['type', 'payment_created_at'])
      .where('pay_id', '=', p.payId)
      .execute();
    expect(notifications.length).toBeGreaterThanOrEqual(4); // authentication, authorized, captured ×2, refunded
    expect(new Set(notifications.map((n) => n.payment_created_at))).toEqual(new Set([createdAt]));

    expect(p.read.operations.map((o) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE', 'CAPTURE', 'REFUND', 'REFUND']);
    expect(p.log.map((n) => n.type).sort()).toEqual(notifications.map((n) => n.type).sort());
  });

  // The index's first column is shared by payments created in the same millisecond: pay_id must keep them apart.
  it("an operation of one payment is never read as another's, even when both were created in the same millisecond", async () => {
    const a = await paymentWithFollowUps('loc-2');
    const b = await paymentWithFollowUps('loc-3');
    // Give b a's creation time: rows of both now share the index's first column.
    const kysely = h.database.db.kysely;
    const created_at = await storedCreatedAt(a.payId);
    await kysely.updateTable('payment').set({ created_at }).where('pay_id', '=', b.payId).execute();
    await kysely
      .updateTable('payment_operation')
      .set({ payment_created_at: created_at })
      .where('pay_id', '=', b.payId)
      .execute();
    await h.services.followUps.refund(merchant, b.payId, { transId: 'loc-3', amount: { value: 100, currency: 'DKK' } });
    const readA = await h.services.payments.getByPayId(merchant.merchantId, a.payId);
    const readB = await h.services.payments.getByPayId(merchant.merchantId, b.payId);
    expect(readA.operations).toHaveLength(4);
    expect(readB.operations.map((o) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE', 'CAPTURE', 'REFUND', 'REFUND']);
  });

  it('the migration fills payment_created_at of the rows written before it, and its down migration restores the old indexes', async () => {
    const p = await paymentWithFollowUps('loc-4');
    const db = h.database.db;
    const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
    // Down to the release before it (the later migrations' down steps run first), then up again.
    const down = await migrator.migrateTo('2026-11-23-0401-auth-notify');
    expect(down.error).toBeUndefined();
    expect(down.results?.map((r) => r.migrationName)).toEqual([
      '2026-11-28-0001-webhook-secret-rotation',
      '2026-11-27-0003-processing-payment-index',
      '2026-11-27-0002-language-length',
      '2026-11-27-0001-partial-sweep-indexes',
      '2026-11-26-0001-payment-locality',
    ]);
    expect(await migrateToLatest(db)).toEqual([
      '2026-11-26-0001-payment-locality',
      '2026-11-27-0001-partial-sweep-indexes',
      '2026-11-27-0002-language-length',
      '2026-11-27-0003-processing-payment-index',
      '2026-11-28-0001-webhook-secret-rotation',
    ]);

    const created_at = await storedCreatedAt(p.payId);
    const filled = async (table: 'payment_operation' | 'notification') =>
      (await db.kysely.selectFrom(table).select('payment_created_at').where('pay_id', '=', p.payId).execute()).map(
        (r) => r.payment_created_at,
      );
    expect(new Set(await filled('payment_operation'))).toEqual(new Set([created_at]));
    expect(new Set(await filled('notification'))).toEqual(new Set([created_at]));
    const read = await h.services.payments.getByPayId(merchant.merchantId, p.payId);
    expect(read.operations).toHaveLength(4);
    expect((await h.services.notifications.listByPayId(merchant.merchantId, p.payId)).length).toBeGreaterThanOrEqual(4);
  });

  it("an insert that does not give payment_created_at, as the previous release's, gets the payment's; a seq is still taken once", async () => {
    const p = await paymentWithFollowUps('loc-5');
    const kysely = h.database.db.kysely;
    const now = new Date().toISOString();
    const operation = (xId: string, seq: number) =>
      sql`insert into payment_operation (x_id, pay_id, seq, type, value, surcharge_value, status, response_code, created_at)
        values (${xId}, ${p.payId}, ${seq}, 'REFUND', 100, 0, 'OK', '00000000', ${now})`.execute(kysely);
    await operation(`a1${p.payId.slice(2)}`, 5);
    await expect(operation(`a2${p.payId.slice(2)}`, 5)).rejects.toThrow(/unique|UNIQUE/);
    const notification = (id: string, payId: string | null) =>
      sql`insert into notification (id, merchant_id, pay_id, type, payload, status, attempt_count, next_attempt_at, created_at)
        values (${id}, ${merchant.merchantId}, ${payId}, 'payment.refunded', '{}', 'NO_TARGET', 0, ${now}, ${now})`.execute(
        kysely,
      );
    await notification(`msg_old_${p.payId}`, p.payId);
    await notification(`msg_none_${p.payId}`, null);

    const created_at = await storedCreatedAt(p.payId);
    const op = await kysely
      .selectFrom('payment_operation')
      .select('payment_created_at')
      .where('x_id', '=', `a1${p.payId.slice(2)}`)
      .executeTakeFirstOrThrow();
    expect(op.payment_created_at).toBe(created_at);
    const events = await kysely
      .selectFrom('notification')
      .select(['id', 'payment_created_at'])
      .where('id', 'in', [`msg_old_${p.payId}`, `msg_none_${p.payId}`])
      .orderBy('id')
      .execute();
    expect(events).toEqual([
      { id: `msg_none_${p.payId}`, payment_created_at: null },
      { id: `msg_old_${p.payId}`, payment_created_at: created_at },
    ]);
    // Both are found by the reads that go through the new indexes.
    const read = await h.services.payments.getByPayId(merchant.merchantId, p.payId);
    expect(read.operations.map((o) => o.xId)).toContain(`a1${p.payId.slice(2)}`);
    const log = await h.services.notifications.listByPayId(merchant.merchantId, p.payId);
    expect(log.map((n) => n.id)).toContain(`msg_old_${p.payId}`);
  });

  it.runIf(dialect === 'sqlite')(
    'SQLite plans every statement that reaches operations or notifications by payId through the new indexes',
    async () => {
      const byPayId = [...new Set(first.compiled)].filter(
        (text) => /payment_operation|"notification"|notification /.test(text) && /pay_id"? = \?/.test(text),
      );
      // The lookup, the SQLite append, the follow-up reserve, the outbox insert, insertOperations' max(seq), the log.
      expect(byPayId.some((text) => text.includes('json_group_array'))).toBe(true);
      expect(byPayId.some((text) => text.startsWith('select * from "notification"'))).toBe(true);
      expect(byPayId.length).toBeGreaterThanOrEqual(6);
      for (const text of byPayId) {
        const params = Array.from(text.matchAll(/\?/g), () => 'x');
        const plan = await h.database.db.kysely.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${text}`, params),
        );
        const details = plan.rows.map((r) => r.detail);
        // A scan of either table by payId would read every row of a million-payment database.
        expect(
          details.filter((d) => /^SCAN (payment_operation|notification)\b/.test(d)),
          text,
        ).toEqual([]);
        for (const d of details.filter((x) => /^SEARCH (payment_operation|notification) /.test(x))) {
          expect(d, text).toMatch(
            /USING (COVERING )?INDEX (payment_operation_payment_seq_uq|notification_payment_idx|sqlite_autoindex_payment_operation_1)/,
          );
        }
      }
    },
  );
});
