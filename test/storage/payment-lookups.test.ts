import { randomUUID } from 'node:crypto';
import { type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Payment } from '../../src/domain/payments/payment.js';
import { migrateToLatest } from '../../src/storage/create-db.js';
import { KyselyPaymentRepository, LOOKUP_BATCH_MAX } from '../../src/storage/payment-repository.kysely.js';
import { paymentFixture } from '../domain/payments/payment-fixture.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { insertMerchantRow } from '../helpers/merchant-rows.js';
import { spyOnStatements } from '../helpers/pg-queries.js';

/** An authorized DIRECT payment of `merchantId` (payment-fixture.ts) under fresh ids, with its AUTHORIZATION. */
function authorized(merchantId: string): Payment {
  const p = paymentFixture({
    payId: randomUUID().replaceAll('-', ''),
    merchantId,
    transId: `t-${randomUUID().slice(0, 12)}`,
    value: 12_500,
  });
  return { ...p, operations: p.operations.map((op) => ({ ...op, xId: randomUUID().replaceAll('-', '') })) };
}

const lookupStatements = (texts: string[]) => texts.filter((t) => /^select "payment"\.\*/.test(t));

/** Inserts `count` copies of payment `payId` and of its operations, under new payIds (md5 of the copy's number). */
async function copyPayment(database: FreshDatabase, payId: string, count: number): Promise<void> {
  const copies = async (table: 'payment' | 'payment_operation', changed: Record<string, string>) => {
    const { rows } = await sql<{ column_name: string }>`select column_name from information_schema.columns
      where table_schema = current_schema() and table_name = ${table}`.execute(database.db.kysely);
    const columns = rows.map((r) => r.column_name);
    const values = columns.map((c) => changed[c] ?? `t.${c}`);
    await sql
      .raw(`insert into ${table} (${columns.join(', ')}) select ${values.join(', ')}
        from ${table} t, generate_series(1, ${count}) g where t.pay_id = '${payId}'`)
      .execute(database.db.kysely);
  };
  await copies('payment', { pay_id: 'md5(g::text || t.pay_id)', trans_id: `'plan-' || g` });
  await copies('payment_operation', { pay_id: 'md5(g::text || t.pay_id)', x_id: `md5('x' || g::text || t.x_id)` });
}

/**
 * The plan (EXPLAIN, JSON text) of the statement the repository sends for concurrent lookups of `payIds`, prepared and
 * executed under `mode` (plan_cache_mode: a generic plan, as a prepared statement gets after five runs, or a custom
 * one, planned for the values).
 */
async function lookupPlan(
  database: FreshDatabase,
  repository: KyselyPaymentRepository,
  merchantId: string,
  payIds: string[],
  mode: 'force_generic_plan' | 'force_custom_plan',
): Promise<string> {
  const queries = spyOnStatements();
  await Promise.all(payIds.map((payId) => repository.findByPayId(merchantId, payId)));
  const [text, ...others] = lookupStatements(queries.texts());
  queries.restore();
  expect(others).toEqual([]);
  return database.db.kysely.connection().execute(async (c) => {
    await sql.raw(`set plan_cache_mode = ${mode}`).execute(c);
    try {
      await sql.raw(`prepare lookup_plan as ${text}`).execute(c);
      // EXECUTE takes no bind parameters: the argument is a literal (payIds, no quotes in them).
      const { rows } = await sql
        .raw<{ 'QUERY PLAN': unknown }>(`explain (format json) execute lookup_plan('{${payIds.join(',')}}')`)
        .execute(c);
      await sql`deallocate lookup_plan`.execute(c);
      return JSON.stringify(rows[0]?.['QUERY PLAN']);
    } finally {
      await sql`reset plan_cache_mode`.execute(c);
    }
  });
}

/**
 * PostgreSQL: the lookups by payId of concurrent requests are one statement (issue 12), each answered as its own
 * `merchant_id = ? and pay_id = ?` read would answer it, and none by a statement sent before it asked. SQLite reads
 * on its own connection without a round trip: each lookup is its own statement there.
 */
describe.runIf(DIALECTS.includes('postgres'))('lookups by payId on PostgreSQL', () => {
  let database: FreshDatabase;
  let repository: KyselyPaymentRepository;
  let merchantId: string;
  let otherMerchantId: string;

  beforeAll(async () => {
    database = await freshDatabase('postgres');
    await migrateToLatest(database.db);
    merchantId = await insertMerchantRow(database.db.kysely);
    otherMerchantId = await insertMerchantRow(database.db.kysely);
    repository = new KyselyPaymentRepository(database.db.kysely);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('answers concurrent lookups with one statement, each its own payment; another merchant’s payId is not found', async () => {
    const mine = [authorized(merchantId), authorized(merchantId)];
    const theirs = authorized(otherMerchantId);
    for (const p of [...mine, theirs]) expect(await repository.insert(p)).toBe('OK');
    const [first, second] = mine as [Payment, Payment];
    const queries = spyOnStatements();
    const answers = await Promise.all([
      repository.findByPayId(merchantId, first.payId),
      repository.findByPayId(merchantId, theirs.payId), // another merchant's payment
      repository.findByPayId(otherMerchantId, theirs.payId),
      repository.findByPayId(merchantId, second.payId),
      repository.findByPayId(merchantId, first.payId), // the same payment twice
      repository.findByPayId(merchantId, 'f'.repeat(32)), // unknown
      repository.findByPayId(merchantId, `${first.payId}0`), // longer than the column: never cut to match
    ]);
    const sent = queries.texts();
    queries.restore();
    expect(lookupStatements(sent), sent.join('\n')).toHaveLength(1);
    expect(answers.map((p) => p?.payId)).toEqual([
      first.payId,
      undefined,
      theirs.payId,
      second.payId,
      first.payId,
      undefined,
      undefined,
    ]);
    expect(answers[0]).toMatchObject({
      merchantId,
      status: 'AUTHORIZED',
      operations: [{ xId: first.operations[0]?.xId, type: 'AUTHORIZATION', value: 12_500 }],
    });
    expect(answers[2]?.merchantId).toBe(otherMerchantId);
  });

  it('does not answer a lookup with a statement that was on its way before it asked: a change committed meanwhile is seen', async () => {
    const payment = authorized(merchantId);
    await repository.insert(payment);
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let ran: () => void = () => {};
    const firstRan = new Promise<void>((resolve) => {
      ran = resolve;
    });
    let statements = 0;
    const holdFirst: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        if (++statements === 1) {
          ran();
          await gate;
        }
        return args.result;
      },
    };
    const watched = new KyselyPaymentRepository(database.db.kysely.withPlugin(holdFirst));
    const first = watched.findByPayId(merchantId, payment.payId);
    await firstRan; // the first statement has read AUTHORIZED; its answer is held on the way back
    await sql`update payment set status = 'OK', captured_value = value where pay_id = ${payment.payId}`.execute(
      database.db.kysely,
    );
    const second = watched.findByPayId(merchantId, payment.payId); // asked after the change committed
    const third = watched.findByPayId(merchantId, payment.payId);
    open();
    expect((await first)?.status).toBe('AUTHORIZED');
    expect((await second)?.status).toBe('OK');
    expect((await third)?.capturedValue).toBe(12_500);
    expect(statements).toBe(2); // the two that asked meanwhile shared the second statement
  });

  it('a value that breaks the statement fails its own lookup only: the others of its batch are answered', async () => {
    const payment = authorized(merchantId);
    await repository.insert(payment);
    const queries = spyOnStatements();
    const answers = await Promise.allSettled([
      repository.findByPayId(merchantId, payment.payId),
      repository.findByPayId(merchantId, `${payment.payId.slice(0, 31)}\u0000`), // PostgreSQL refuses a NUL byte
      repository.findByPayId(merchantId, payment.payId),
    ]);
    const sent = queries.texts();
    queries.restore();
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((answers[1] as PromiseRejectedResult).reason).toMatchObject({ code: '22021' });
    expect((answers[0] as PromiseFulfilledResult<Payment | undefined>).value?.payId).toBe(payment.payId);
    expect((answers[2] as PromiseFulfilledResult<Payment | undefined>).value?.payId).toBe(payment.payId);
    expect(lookupStatements(sent)).toHaveLength(4); // the batch, then each of its three alone
  });

  it('sends at most LOOKUP_BATCH_MAX lookups a statement', async () => {
    const payment = authorized(merchantId);
    await repository.insert(payment);
    const queries = spyOnStatements();
    const answers = await Promise.all(
      Array.from({ length: LOOKUP_BATCH_MAX + 1 }, () => repository.findByPayId(merchantId, payment.payId)),
    );
    const sent = queries.texts();
    queries.restore();
    expect(lookupStatements(sent)).toHaveLength(2);
    expect(new Set(answers.map((p) => p?.payId))).toEqual(new Set([payment.payId]));
  });

  it('inside a transaction each lookup is a statement of that transaction', async () => {
    const payment = authorized(merchantId);
    await repository.insert(payment);
    await database.db.kysely.transaction().execute(async (trx) => {
      const inTransaction = new KyselyPaymentRepository(trx);
      const queries = spyOnStatements();
      const answers = await Promise.all([
        inTransaction.findByPayId(merchantId, payment.payId),
        inTransaction.findByPayId(merchantId, payment.payId),
      ]);
      const sent = queries.texts();
      queries.restore();
      expect(lookupStatements(sent)).toHaveLength(2);
      expect(answers.map((p) => p?.status)).toEqual(['AUTHORIZED', 'AUTHORIZED']);
    });
  });

  it('its generic plan (a prepared statement’s) reads payment and its operations through their indexes', async () => {
    const payment = authorized(merchantId);
    await repository.insert(payment);
    // 3,000 copies of it (and of its operation), analyzed: on a table of a few pages any plan scans.
    await copyPayment(database, payment.payId, 3_000);
    await sql`analyze payment, payment_operation`.execute(database.db.kysely);
    const plan = await lookupPlan(database, repository, merchantId, [payment.payId], 'force_generic_plan');
    expect(plan).toContain('"Index Name":"payment_pkey"');
    expect(plan).toContain('"Index Name":"payment_operation_payment_seq_uq"');
    expect(plan).not.toMatch(/"Node Type":"Seq Scan"/);
  });
});

/**
 * A table whose statistics are missing (new) or stale: the batched lookup still goes through the primary key. With
 * `merchant_id = any(…)` in the statement it was planned through the (merchant_id, trans_id) index and read every
 * payment of the merchant (issue 12).
 */
describe.runIf(DIALECTS.includes('postgres'))('lookups by payId on a PostgreSQL table never analyzed', () => {
  let database: FreshDatabase;

  beforeAll(async () => {
    database = await freshDatabase('postgres');
    await migrateToLatest(database.db);
    // Autovacuum would analyze the tables meanwhile (autovacuum_naptime): off for these two, so none ever is.
    await sql`alter table payment set (autovacuum_enabled = off)`.execute(database.db.kysely);
    await sql`alter table payment_operation set (autovacuum_enabled = off)`.execute(database.db.kysely);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('reads 32 of one merchant’s 1,001 payments through the primary key, not all of the merchant’s', async () => {
    const merchantId = await insertMerchantRow(database.db.kysely);
    const repository = new KyselyPaymentRepository(database.db.kysely);
    const payment = authorized(merchantId);
    await repository.insert(payment);
    await copyPayment(database, payment.payId, 1_000);
    const { rows: analyzed } = await sql<{ analyzed: boolean }>`select coalesce(last_analyze, last_autoanalyze)
      is not null as analyzed from pg_stat_user_tables where relname = 'payment'`.execute(database.db.kysely);
    expect(analyzed).toEqual([{ analyzed: false }]);
    const { rows } = await sql<{ pay_id: string }>`select pay_id from payment order by pay_id limit 32`.execute(
      database.db.kysely,
    );
    const plan = await lookupPlan(
      database,
      repository,
      merchantId,
      rows.map((r) => r.pay_id),
      'force_custom_plan',
    );
    expect(plan).toContain('"Index Name":"payment_pkey"');
    expect(plan).not.toContain('payment_trans_id_idx');
    expect(plan).not.toMatch(/"Node Type":"Seq Scan"/);
  });
});
