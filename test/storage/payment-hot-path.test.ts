/**
 * The write path of a DIRECT payment (issue 12): one durable write before the acquirer call (the intent) and one
 * after (the result with the 3-D Secure outcome, the operations, the events), no re-read of what was just written.
 */
import { DefaultQueryCompiler } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Merchant } from '../../src/domain/merchants/merchant.js';
import type { PaymentOperation } from '../../src/domain/payments/payment.js';
import type { CreatePaymentCommand } from '../../src/domain/payments/payment-request.js';
import { MemorySettlementLedger } from '../../src/integrations/acquirer-simulator/settlement-ledger.js';
import { SimulatorAcquirer } from '../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../src/integrations/bins/csv-bin-table.js';
import type { Services } from '../../src/services.js';
import type { KyselyStore } from '../../src/storage/kysely-store.js';
import { KyselyPaymentRepository } from '../../src/storage/payment-repository.kysely.js';
import { directCommand, fixedClock } from '../domain/threeds/three-ds-fixtures.js';
import { DIALECTS, type FreshDatabase } from '../helpers/dialects.js';
import { spyOnStatements } from '../helpers/pg-queries.js';
import { type ServiceHarness, startServiceHarness } from '../helpers/service-harness.js';

describe.each(DIALECTS)('the DIRECT payment write path (%s)', (dialect) => {
  let h: ServiceHarness;
  let database: FreshDatabase;
  let services: Services;
  let store: KyselyStore;
  let merchant: Merchant;
  const clock = fixedClock(new Date().toISOString());

  beforeAll(async () => {
    h = await startServiceHarness(dialect, {
      merchantId: `hot_${dialect}`,
      webhookUrl: 'https://shop.example/hook',
      overrides: (config) => ({
        clock,
        acquirer: new SimulatorAcquirer(CsvBinTable.fromFile(config.binFile), new MemorySettlementLedger(), () =>
          clock.now(),
        ),
      }),
    });
    ({ database, services, store, merchant } = h);
  });
  afterAll(async () => h?.close());

  const direct = (extra: Partial<CreatePaymentCommand> = {}) => directCommand(merchant.merchantId, extra);

  it('stores the result, its operations numbered 1 and 2, the ARes and both notifications', async () => {
    const p = await services.payments.createDirectPayment(merchant, direct());
    expect(p).toMatchObject({ status: 'OK', threeDS: { transStatus: 'Y' } });
    const ops = await database.db.kysely
      .selectFrom('payment_operation')
      .select(['type', 'seq'])
      .where('pay_id', '=', p.payId)
      .orderBy('seq')
      .execute();
    expect(ops.map((o) => [o.type, Number(o.seq)])).toEqual([
      ['AUTHORIZATION', 1],
      ['CAPTURE', 2],
    ]);
    const stored = await store.payments.findByPayId(merchant.merchantId, p.payId);
    expect(stored?.threeDS?.transStatus).toBe('Y');
    const types = await database.db.kysely
      .selectFrom('notification')
      .select('type')
      .where('pay_id', '=', p.payId)
      .orderBy('created_at')
      .execute();
    expect(types.map((t) => t.type).sort()).toEqual(['authentication', 'payment.authorized'].sort());
  });

  /** A MANUAL payment authorized through the service, and a CAPTURE operation (`xId`, then `extra`) to append. */
  async function authorizedWithCapture(xId: string, extra: Partial<PaymentOperation> = {}) {
    const p = await services.payments.createDirectPayment(merchant, direct({ captureMethod: 'MANUAL' }));
    const [authorization] = p.operations;
    if (authorization === undefined) throw new Error('no authorization');
    const capture: PaymentOperation = { ...authorization, xId, type: 'CAPTURE', creationDate: clock.now(), ...extra };
    return { p, authorization, capture };
  }

  it('update appends only the operations not stored yet, numbered after the stored ones', async () => {
    const { p, authorization, capture } = await authorizedWithCapture('f'.repeat(32));
    await store.transaction((tx) => tx.payments.update({ ...p, operations: [...p.operations, capture] }));
    await store.transaction((tx) => tx.payments.update({ ...p, operations: [...p.operations, capture] })); // again
    const stored = await store.payments.findByPayId(merchant.merchantId, p.payId);
    expect(stored?.operations.map((o) => [o.xId, o.type])).toEqual([
      [authorization.xId, 'AUTHORIZATION'],
      ['f'.repeat(32), 'CAPTURE'],
    ]);
  });

  it('reads a payment back with its operations in ONE statement, every field as written', async () => {
    const { p, capture } = await authorizedWithCapture('e'.repeat(32), {
      refNr: 'ref-1',
      transId: 'capture-1',
      value: 5_000,
      finalCapture: true,
      requestKey: 'key-1',
      creationDate: new Date(clock.now().getTime() + 1_000),
    });
    const written = { ...p, capturedValue: 5_000, operations: [...p.operations, capture] };
    await store.transaction((tx) => tx.payments.update(written));
    // The columns only the follow-up path writes (write-ahead follow-ups).
    await database.db.kysely
      .updateTable('payment_operation')
      .set({ final_capture: 1, request_key: 'key-1' })
      .where('x_id', '=', capture.xId)
      .execute();
    let statements = 0;
    const counted = new KyselyPaymentRepository(
      database.db.kysely.withPlugin({
        transformQuery: (args) => args.node,
        // Called for every statement executed, compiled just now or earlier (query-shapes.ts).
        transformResult: async (args) => {
          statements++;
          return args.result;
        },
      }),
    );
    const stored = await counted.findByPayId(merchant.merchantId, p.payId);
    expect(statements).toBe(1);
    expect(stored?.operations).toEqual(written.operations);
    expect(stored?.operations.map((o) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE']);
    expect(stored?.capturedValue).toBe(5_000);
    expect(await counted.findLatestByTransId(merchant.merchantId, p.transId)).toEqual(stored);
    expect(await counted.findByPayIdAnyMerchant(p.payId)).toEqual(stored);
    expect(await counted.findByPayId('someone_else', p.payId)).toBeUndefined();
  });

  it('a warm DIRECT payment compiles no query: every statement of its path is a shape compiled once', async () => {
    await services.payments.createDirectPayment(merchant, direct()); // warm: the shapes are compiled
    const compiles = vi.spyOn(DefaultQueryCompiler.prototype, 'compileQuery');
    try {
      await services.payments.createDirectPayment(merchant, direct());
      expect(compiles.mock.results.map((r) => (r.value as { sql: string }).sql)).toEqual([]);
    } finally {
      compiles.mockRestore();
    }
  });

  it('warm lookups, captures, sessions and Idempotency-Key claims compile no query either', async () => {
    /** A getByTransId, the hosted page's read, a MANUAL payment's capture, a session and an Idempotency-Key claim. */
    const calls = async (n: number) => {
      const p = await services.payments.createDirectPayment(merchant, direct({ captureMethod: 'MANUAL' }));
      await services.payments.getByTransId(merchant.merchantId, p.transId);
      await store.payments.findByPayIdAnyMerchant(p.payId);
      const captured = await services.followUps.capture(merchant, p.payId, {
        transId: `cap-${n}-${p.transId}`,
        amount: { value: p.value, currency: p.currency },
      });
      expect(captured.payment.capturedValue).toBe(p.value);
      const session = await services.hosted.createSession(merchant, {
        merchantId: merchant.merchantId,
        transId: `s-${n}-${p.transId}`,
        amount: { value: 2_500, currency: 'DKK' },
        captureMethod: 'AUTOMATIC',
        urls: { return: 'https://shop.example/ok', cancel: 'https://shop.example/cancel' },
      });
      await services.hosted.getSession(merchant.merchantId, session.sessionId);
      const key = `idem-${n}-${p.payId}`;
      expect(await store.idempotency.claim(merchant.merchantId, key, 'hash', clock.now())).toBeUndefined();
      await store.idempotency.complete(merchant.merchantId, key, 201, '{}');
      expect(await store.idempotency.claim(merchant.merchantId, key, 'hash', clock.now())).toMatchObject({
        state: 'DONE',
      });
    };
    await calls(1); // warm: the shapes are compiled
    const compiles = vi.spyOn(DefaultQueryCompiler.prototype, 'compileQuery');
    try {
      await calls(2);
      expect(compiles.mock.results.map((r) => (r.value as { sql: string }).sql)).toEqual([]);
    } finally {
      compiles.mockRestore();
    }
  });

  it.runIf(dialect === 'postgres')(
    'on PostgreSQL a frictionless DIRECT payment is two statements: the intent and the result (with the card cleanup)',
    async () => {
      await services.payments.createDirectPayment(merchant, direct()); // warm: caches, first statements
      const queries = spyOnStatements();
      try {
        await services.payments.createDirectPayment(merchant, direct());
        const sent = queries.texts();
        expect(sent, sent.join('\n')).toHaveLength(2);
        expect(sent[1]).toMatch(/delete from "pending_card"/);
      } finally {
        queries.restore();
      }
    },
  );

  it.runIf(dialect === 'sqlite')(
    'on SQLite a payment is two units of work (intent, result) and no synchronous writer round trip',
    async () => {
      const stats = database.db.groupCommit;
      if (stats === undefined) throw new Error('no group commit figures');
      await services.payments.createDirectPayment(merchant, direct()); // warm: caches, first statements
      const before = { ...stats };
      await services.payments.createDirectPayment(merchant, direct());
      expect(stats.units - before.units).toBe(2);
      expect(stats.syncCalls - before.syncCalls).toBe(0);
    },
  );
});
