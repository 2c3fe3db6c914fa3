import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Payment } from '../../src/domain/payments/payment.js';
import { migrateToLatest } from '../../src/storage/create-db.js';
import { KyselyPaymentRepository } from '../../src/storage/payment-repository.kysely.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { insertMerchantRow } from '../helpers/merchant-rows.js';
import { spyOnStatements } from '../helpers/pg-queries.js';

/** A new DIRECT payment, PENDING, as insertPendingDirectPayment stores it (no operations yet). */
function intent(merchantId: string, transId = `t-${randomUUID().slice(0, 12)}`): Payment {
  const now = new Date();
  return {
    payId: randomUUID().replaceAll('-', ''),
    merchantId,
    transId,
    status: 'PENDING',
    responseCode: '60000001',
    currency: 'DKK',
    value: 12_500,
    capturedValue: 0,
    refundedValue: 0,
    surcharge: { status: 'NOT_OFFERED', reason: 'DIRECT_INTEGRATION', value: 0 },
    surchargeCapturedValue: 0,
    surchargeRefundedValue: 0,
    captureMethod: 'AUTOMATIC',
    integrationType: 'DIRECT',
    channel: 'ECOM',
    operations: [],
    creationDate: now,
    updatedAt: now,
  };
}

/**
 * PostgreSQL: the intents of concurrent requests go to the database as one INSERT (issue 12), each answered as its own
 * insert would be. SQLite's writer commits concurrent units together already: nothing of this there.
 */
describe.runIf(DIALECTS.includes('postgres'))('concurrent payment intents on PostgreSQL', () => {
  let database: FreshDatabase;
  let repository: KyselyPaymentRepository;
  let merchantId: string;
  const stored = async (transId: string) =>
    (
      await database.db.kysely
        .selectFrom('payment')
        .select('pay_id')
        .where('merchant_id', '=', merchantId)
        .where('trans_id', '=', transId)
        .execute()
    ).map((r) => r.pay_id);

  beforeAll(async () => {
    database = await freshDatabase('postgres');
    await migrateToLatest(database.db);
    merchantId = await insertMerchantRow(database.db.kysely);
    repository = new KyselyPaymentRepository(database.db.kysely);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('are stored by one statement, each OK', async () => {
    const payments = Array.from({ length: 5 }, () => intent(merchantId));
    const queries = spyOnStatements();
    const answers = await Promise.all(payments.map((p) => repository.insert(p)));
    const sent = queries.texts();
    queries.restore();
    expect(answers).toEqual(['OK', 'OK', 'OK', 'OK', 'OK']);
    expect(
      sent.filter((t) => /^insert into "payment"/.test(t)),
      sent.join('\n'),
    ).toHaveLength(1);
    for (const p of payments) expect(await stored(p.transId)).toEqual([p.payId]);
  });

  it('a transId held by a stored payment, or by another row of the same statement, is TRANS_ID_IN_USE and not stored', async () => {
    const held = intent(merchantId);
    expect(await repository.insert(held)).toBe('OK');
    const twinA = intent(merchantId, `twin-${randomUUID().slice(0, 8)}`);
    const twinB = intent(merchantId, twinA.transId);
    const again = intent(merchantId, held.transId);
    const fresh = intent(merchantId);
    const answers = await Promise.all([twinA, twinB, again, fresh].map((p) => repository.insert(p)));
    expect(answers).toEqual(['OK', 'TRANS_ID_IN_USE', 'TRANS_ID_IN_USE', 'OK']);
    expect(await stored(twinA.transId)).toEqual([twinA.payId]);
    expect(await stored(held.transId)).toEqual([held.payId]);
    expect(await stored(fresh.transId)).toEqual([fresh.payId]);
  });

  it('a row that breaks the statement fails alone: the others of its batch are stored', async () => {
    const good = [intent(merchantId), intent(merchantId)];
    const orphan = intent('no-such-merchant'); // the foreign key to merchant refuses it
    const answers = await Promise.allSettled([good[0], orphan, good[1]].map((p) => repository.insert(p as Payment)));
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((answers[1] as PromiseRejectedResult).reason).toMatchObject({ code: '23503' });
    for (const p of good) expect(await stored(p.transId)).toEqual([p.payId]);
    expect(await stored(orphan.transId)).toEqual([]);
  });

  it('inside a transaction each insert is a statement of that transaction, as before', async () => {
    const payments = [intent(merchantId), intent(merchantId)];
    await database.db.kysely.transaction().execute(async (trx) => {
      const inTransaction = new KyselyPaymentRepository(trx);
      const queries = spyOnStatements();
      expect(await Promise.all(payments.map((p) => inTransaction.insert(p)))).toEqual(['OK', 'OK']);
      const sent = queries.texts();
      queries.restore();
      expect(
        sent.filter((t) => /^insert into "payment"/.test(t)),
        sent.join('\n'),
      ).toHaveLength(2);
    });
    for (const p of payments) expect(await stored(p.transId)).toHaveLength(1);
  });
});
