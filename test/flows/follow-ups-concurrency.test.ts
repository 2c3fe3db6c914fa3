import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';
import { applySurcharge, authorizedPayment, type Credentials, followUp } from './follow-ups.helpers.js';

/** Stored totals of a payment and the sums of its stored OK operations, straight from the database. */
async function storedLedger(t: TestKassa, payId: string) {
  const db = t.kassa.db.kysely;
  const p = await db.selectFrom('payment').selectAll().where('pay_id', '=', payId).executeTakeFirstOrThrow();
  const ops = await db.selectFrom('payment_operation').selectAll().where('pay_id', '=', payId).execute();
  const sum = (type: string, key: 'value' | 'surcharge_value') =>
    ops.filter((o) => o.type === type && o.status === 'OK').reduce((s, o) => s + Number(o[key]), 0);
  return {
    status: p.status,
    capturedValue: Number(p.captured_value),
    surchargeCapturedValue: Number(p.surcharge_captured_value),
    refundedValue: Number(p.refunded_value),
    surchargeRefundedValue: Number(p.surcharge_refunded_value),
    sums: {
      capturedValue: sum('CAPTURE', 'value'),
      surchargeCapturedValue: sum('CAPTURE', 'surcharge_value'),
      refundedValue: sum('REFUND', 'value'),
      surchargeRefundedValue: sum('REFUND', 'surcharge_value'),
    },
    reversals: ops.filter((o) => o.type === 'REVERSAL').length,
  };
}

describe.each(DIALECTS)('concurrent follow-ups on one payment (%s)', (dialect) => {
  let t: TestKassa;
  let merchant: Credentials;

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK' });
  });
  afterAll(async () => t?.close());

  const amount = (value: number) => ({ value, currency: 'DKK' });

  // Money: 20 concurrent partial captures never over-capture; 20 concurrent partial refunds never over-refund.
  it('20 concurrent captures of 700 on 10 000 capture exactly 14; 20 concurrent refunds of 600 refund exactly 16', async () => {
    const p = await authorizedPayment(t, merchant, 10_000);
    await applySurcharge(t, p.payId, 180);

    const captures = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(700), refNr: `c${i}` }),
      ),
    );
    expect(captures.filter((r) => r.status === 201)).toHaveLength(14);
    expect(captures.filter((r) => r.status === 409 && r.body.code === 'CAPTURE_EXCEEDS_AUTHORIZED')).toHaveLength(6);
    let ledger = await storedLedger(t, p.payId);
    expect(ledger).toMatchObject({ status: 'OK', capturedValue: 9_800, surchargeCapturedValue: 176 }); // 176.4
    expect(ledger.sums).toMatchObject({ capturedValue: 9_800, surchargeCapturedValue: 176 });

    const rest = await followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(200) });
    expect(rest.body.surcharge).toMatchObject({ value: 180, capturedValue: 180 });

    const refunds = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        followUp(t, merchant, p.payId, 'refunds', { transId: p.transId, amount: amount(600), refNr: `r${i}` }),
      ),
    );
    expect(refunds.filter((r) => r.status === 201)).toHaveLength(16);
    expect(refunds.filter((r) => r.status === 409 && r.body.code === 'REFUND_EXCEEDS_CAPTURED')).toHaveLength(4);
    ledger = await storedLedger(t, p.payId);
    expect(ledger).toMatchObject({ refundedValue: 9_600, surchargeRefundedValue: 173 }); // 172.8
    expect(ledger.sums).toEqual({
      capturedValue: 10_000,
      surchargeCapturedValue: 180,
      refundedValue: 9_600,
      surchargeRefundedValue: 173,
    });
  });

  // Money: concurrent captures and refunds of random sizes keep totals equal to the sums of the operations.
  it('20 concurrent captures and refunds of mixed sizes keep every total equal to the sum of its operations', async () => {
    const p = await authorizedPayment(t, merchant, 10_000);
    await applySurcharge(t, p.payId, 333);
    await followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(1_000) });
    const sizes = [1_337, 2_500, 999, 1, 4_000, 777, 3_333, 1_234, 50, 2_222];
    const results = await Promise.all(
      sizes.flatMap((v) => [
        followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(v) }),
        followUp(t, merchant, p.payId, 'refunds', { transId: p.transId, amount: amount(Math.ceil(v / 2)) }),
      ]),
    );
    expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    const ledger = await storedLedger(t, p.payId);
    expect(ledger.sums).toEqual({
      capturedValue: ledger.capturedValue,
      surchargeCapturedValue: ledger.surchargeCapturedValue,
      refundedValue: ledger.refundedValue,
      surchargeRefundedValue: ledger.surchargeRefundedValue,
    });
    expect(ledger.capturedValue).toBeLessThanOrEqual(10_000);
    expect(ledger.surchargeCapturedValue).toBeLessThanOrEqual(333);
    expect(ledger.refundedValue).toBeLessThanOrEqual(ledger.capturedValue);
    expect(ledger.surchargeRefundedValue).toBeLessThanOrEqual(ledger.surchargeCapturedValue);
  });

  // Money: a reversal racing captures either wins alone (nothing captured) or loses to the first capture.
  it('10 reversals racing 10 captures end either REVERSED with nothing captured or OK with no reversal', async () => {
    const p = await authorizedPayment(t, merchant, 10_000);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => [
        followUp(t, merchant, p.payId, 'reversals', { transId: p.transId }),
        followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(500) }),
      ]).flat(),
    );
    const ledger = await storedLedger(t, p.payId);
    if (ledger.status === 'REVERSED') {
      expect(ledger).toMatchObject({ capturedValue: 0, reversals: 1 });
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    } else {
      expect(ledger).toMatchObject({ status: 'OK', reversals: 0 });
      expect(ledger.capturedValue).toBe(results.filter((r) => r.status === 201).length * 500);
      expect(results.filter((r) => r.body.code === 'PAYMENT_NOT_REVERSIBLE')).toHaveLength(10);
    }
  });
});
