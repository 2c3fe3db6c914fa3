import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Acquirer, AcquirerFollowUpRequest } from '../../../src/domain/ports/acquirer.js';
import { SimulatorAcquirer } from '../../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../../src/integrations/bins/csv-bin-table.js';
import { applySurcharge, authorizedPayment, type Credentials, followUp } from '../../flows/follow-ups.helpers.js';
import { acquirerAround, type FollowUpSend } from '../../helpers/acquirer.js';
import { directPayment, testPan } from '../../helpers/cards.js';
import { DIALECTS } from '../../helpers/dialects.js';
import { outboxEvents } from '../../helpers/outbox.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

/** Follow-ups of this total value (surcharge included) are declined "05 do not honor" by the test acquirer. */
const DECLINED_VALUE = 4_242;

/** The simulator, except that follow-ups of DECLINED_VALUE are declined (the simulator itself approves all). */
function decliningAcquirer(): Acquirer {
  const sim = new SimulatorAcquirer(CsvBinTable.fromFile(new URL('../../../data/bins.csv', import.meta.url).pathname));
  const decideOr = (approve: FollowUpSend): FollowUpSend => {
    return async (r: AcquirerFollowUpRequest) =>
      r.value === DECLINED_VALUE
        ? { outcome: 'DECLINED' as const, acquirerReference: 'SIMDECLINE', responseCode: '05', message: 'Do not honor' }
        : approve(r);
  };
  return acquirerAround(() => sim, { followUps: decideOr });
}

describe.each(DIALECTS)('follow-ups: captures, refunds, reversals (%s)', (dialect) => {
  let t: TestKassa;
  let merchant: Credentials;

  beforeAll(async () => {
    t = await startTestKassa(dialect, { acquirer: decliningAcquirer() });
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK' });
  });
  afterAll(async () => t?.close());

  const amount = (value: number) => ({ value, currency: 'DKK' });

  it('a partial capture is a new CAPTURE operation with its own xId, answered 201 with the payment details', async () => {
    const p = await authorizedPayment(t, merchant);
    const res = await followUp(t, merchant, p.payId, 'captures', {
      transId: p.transId,
      amount: amount(4_000),
      refNr: 'cap-1',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`${t.url}/api/v1/payments/getByPayId/${p.payId}`);
    expect(res.body).toMatchObject({
      payId: p.payId,
      status: 'OK',
      amount: { value: 10_000, capturedValue: 4_000, refundedValue: 0 },
      totalAmount: { value: 10_000, capturedValue: 4_000, refundedValue: 0 },
    });
    const ops = res.body.operations;
    expect(ops.map((o: { type: string }) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE']);
    expect(ops[1]).toMatchObject({ refNr: 'cap-1', status: 'OK', responseCode: '00000000', amount: amount(4_000) });
    expect(ops[1].xId).toMatch(/^[0-9a-f]{32}$/);
    expect(ops[1].xId).not.toBe(ops[0].xId);
    const read = await t.call('GET', `/api/v1/payments/getByPayId/${p.payId}`, { auth: merchant });
    expect(read.body).toEqual(res.body);
  });

  // Money: the remaining authorization stays capturable after a partial capture, and not one unit more.
  it('a partly captured (OK) payment captures the rest of its authorization, and then nothing more', async () => {
    const p = await authorizedPayment(t, merchant);
    await followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(7_000) });
    const rest = await followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(3_000) });
    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ status: 'OK', amount: { capturedValue: 10_000 } });
    const more = await followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(1) });
    expect(more.status).toBe(409);
    expect(more.body.code).toBe('CAPTURE_EXCEEDS_AUTHORIZED');
  });

  // Money: a surcharged payment's follow-ups carry the prorated surcharge and state the binding totals.
  it('partial capture and partial refund of a surcharged payment carry the prorated surcharge (spec §1.10)', async () => {
    const p = await authorizedPayment(t, merchant);
    await applySurcharge(t, p.payId, 180);
    const captured = await followUp(t, merchant, p.payId, 'captures', {
      transId: p.transId,
      amount: amount(6_000),
      refNr: 'shipment-1',
    });
    expect(captured.status).toBe(201);
    expect(captured.body).toMatchObject({
      status: 'OK',
      amount: { value: 10_000, capturedValue: 6_000, refundedValue: 0 },
      surcharge: { status: 'APPLIED', value: 180, capturedValue: 108, refundedValue: 0 },
      totalAmount: { value: 10_180, capturedValue: 6_108, refundedValue: 0 },
    });
    const refunded = await followUp(t, merchant, p.payId, 'refunds', {
      transId: p.transId,
      amount: amount(2_500),
      refNr: 'return-1',
    });
    expect(refunded.status).toBe(201);
    expect(refunded.body).toMatchObject({
      status: 'OK',
      amount: { capturedValue: 6_000, refundedValue: 2_500 },
      surcharge: { capturedValue: 108, refundedValue: 45 }, // 108 × 2 500 / 6 000 = 45
      totalAmount: { capturedValue: 6_108, refundedValue: 2_545 },
    });
    expect(refunded.body.operations.slice(1)).toMatchObject([
      { type: 'CAPTURE', refNr: 'shipment-1', amount: amount(6_000), totalAmount: amount(6_108) },
      { type: 'REFUND', refNr: 'return-1', amount: amount(2_500), totalAmount: amount(2_545) },
    ]);
    if (dialect === 'sqlite' && process.env.PRINT_SAMPLE) console.log(JSON.stringify(refunded.body, null, 2));

    // Completing both ends exactly at the authorized and the captured surcharge.
    await followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(4_000) });
    const done = await followUp(t, merchant, p.payId, 'refunds', { transId: p.transId, amount: amount(7_500) });
    expect(done.body).toMatchObject({
      amount: { capturedValue: 10_000, refundedValue: 10_000 },
      surcharge: { capturedValue: 180, refundedValue: 180 },
      totalAmount: { capturedValue: 10_180, refundedValue: 10_180 },
    });
  });

  it('a reversal cancels the whole authorization including the surcharge; the payment is REVERSED', async () => {
    const p = await authorizedPayment(t, merchant);
    await applySurcharge(t, p.payId, 180);
    const res = await followUp(t, merchant, p.payId, 'reversals', { transId: p.transId, refNr: 'cancel-1' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'REVERSED',
      amount: { capturedValue: 0, refundedValue: 0 },
      surcharge: { capturedValue: 0, refundedValue: 0 },
    });
    expect(res.body.operations[1]).toMatchObject({
      type: 'REVERSAL',
      refNr: 'cancel-1',
      status: 'OK',
      amount: amount(10_000),
      totalAmount: amount(10_180),
    });
    const withAmount = await authorizedPayment(t, merchant);
    const ok = await followUp(t, merchant, withAmount.payId, 'reversals', {
      transId: withAmount.transId,
      amount: amount(10_000),
    });
    expect(ok.body.status).toBe('REVERSED');
  });

  it('a declined follow-up is a FAILED operation in a 201 and changes neither status nor totals', async () => {
    const p = await authorizedPayment(t, merchant);
    const res = await followUp(t, merchant, p.payId, 'captures', {
      transId: p.transId,
      amount: amount(DECLINED_VALUE),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'AUTHORIZED', amount: { capturedValue: 0 } });
    expect(res.body.operations[1]).toMatchObject({ type: 'CAPTURE', status: 'FAILED', responseCode: '20020005' });
    expect((await outboxEvents(t.kassa.db.kysely, p.payId, 'payment.')).map((e) => e.type)).toEqual([
      'payment.authorized',
    ]);
    // The decline used up nothing: the whole authorization is still capturable.
    const retry = await followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(10_000) });
    expect(retry.body).toMatchObject({ status: 'OK', amount: { capturedValue: 10_000 } });
  });

  it('payment.captured, payment.refunded and payment.reversed are written to the outbox with the details', async () => {
    const p = await authorizedPayment(t, merchant);
    await followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(5_000) });
    await followUp(t, merchant, p.payId, 'refunds', { transId: p.transId, amount: amount(1_000) });
    const events = await outboxEvents(t.kassa.db.kysely, p.payId, 'payment.');
    expect(events.map((e) => e.type).sort()).toEqual(['payment.authorized', 'payment.captured', 'payment.refunded']);
    const refunded = events.find((e) => e.type === 'payment.refunded');
    expect(refunded?.payload).toMatchObject({
      type: 'payment.refunded',
      payId: p.payId,
      amount: { capturedValue: 5_000, refundedValue: 1_000 },
    });
    const r = await authorizedPayment(t, merchant);
    await followUp(t, merchant, r.payId, 'reversals', { transId: r.transId });
    expect((await outboxEvents(t.kassa.db.kysely, r.payId, 'payment.')).map((e) => e.type).sort()).toEqual([
      'payment.authorized',
      'payment.reversed',
    ]);
  });

  // Every forbidden edge of the state machine answers 409 with its code over HTTP.
  it.each([
    ['capture of a REVERSED payment', 'REVERSED', 'captures', 'PAYMENT_NOT_CAPTURABLE'],
    ['capture of a FAILED payment', 'FAILED', 'captures', 'PAYMENT_NOT_CAPTURABLE'],
    ['refund of an AUTHORIZED payment', 'AUTHORIZED', 'refunds', 'PAYMENT_NOT_REFUNDABLE'],
    ['refund of a REVERSED payment', 'REVERSED', 'refunds', 'PAYMENT_NOT_REFUNDABLE'],
    ['refund of a FAILED payment', 'FAILED', 'refunds', 'PAYMENT_NOT_REFUNDABLE'],
    ['reversal of a captured (OK) payment', 'OK', 'reversals', 'PAYMENT_NOT_REVERSIBLE'],
    ['reversal of a REVERSED payment', 'REVERSED', 'reversals', 'PAYMENT_NOT_REVERSIBLE'],
    ['reversal of a FAILED payment', 'FAILED', 'reversals', 'PAYMENT_NOT_REVERSIBLE'],
  ] as const)('%s is refused with 409 %s', async (_name, status, kind, code) => {
    let p: { payId: string; transId: string };
    if (status === 'FAILED') {
      const res = await t.call('POST', '/api/v1/payments', {
        auth: merchant,
        json: directPayment(testPan('40000000', '1100'), { captureMethod: { type: 'MANUAL' } }),
      });
      expect(res.body.status).toBe('FAILED');
      p = res.body;
    } else {
      p = await authorizedPayment(t, merchant);
      if (status === 'OK') await followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(1) });
      if (status === 'REVERSED') await followUp(t, merchant, p.payId, 'reversals', { transId: p.transId });
    }
    const res = await followUp(t, merchant, p.payId, kind, { transId: p.transId, amount: amount(100) });
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code, status: 409 });
  });

  // Money: never refund more than was captured.
  it('refund above the captured amount is refused with REFUND_EXCEEDS_CAPTURED', async () => {
    const p = await authorizedPayment(t, merchant);
    await followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(3_000) });
    await followUp(t, merchant, p.payId, 'refunds', { transId: p.transId, amount: amount(2_000) });
    const res = await followUp(t, merchant, p.payId, 'refunds', { transId: p.transId, amount: amount(1_001) });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'REFUND_EXCEEDS_CAPTURED', detail: 'at most 1000 can still be refunded' });
  });

  // Money: never capture more than was authorized.
  it('capture above the authorized amount is refused with CAPTURE_EXCEEDS_AUTHORIZED', async () => {
    const p = await authorizedPayment(t, merchant);
    const res = await followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(10_001) });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CAPTURE_EXCEEDS_AUTHORIZED');
  });

  // paygate-v2-wire.md §3: the answer is the operation's result; its transId is the merchant's id of the operation.
  it('a capture under its own transId answers the operation’s result: xId, transId, status, amounts and the payment', async () => {
    const p = await authorizedPayment(t, merchant);
    await applySurcharge(t, p.payId, 200);
    const res = await followUp(t, merchant, p.payId, 'captures', {
      transId: 'capture-of-order-1',
      amount: { value: '4000', currency: 'DKK' },
      refNr: '000000001042',
    });
    expect(res.status).toBe(201);
    const capture = res.body.operations[1];
    expect(res.answer).toEqual({
      payId: p.payId,
      xId: capture.xId,
      transId: 'capture-of-order-1',
      refNr: '000000001042',
      merchantId: merchant.merchantId,
      type: 'CAPTURE',
      status: 'OK',
      responseCode: '00000000',
      responseDescription: expect.any(String),
      amount: amount(4_000),
      surcharge: amount(capture.totalAmount.value - 4_000),
      totalAmount: capture.totalAmount,
      creationDate: capture.creationDate,
      payment: res.body,
    });
    expect(capture).toMatchObject({ transId: 'capture-of-order-1', type: 'CAPTURE' });
    expect(res.answer.xId).not.toBe(res.body.xId);
    expect(res.body.xId).toBe(res.body.operations[0].xId);
    const byOwnTransId = await t.call('GET', `/api/v1/payments/getByTransId/${p.transId}`, { auth: merchant });
    expect(byOwnTransId.body.payId).toBe(p.payId);
  });

  it('a declined capture answers status FAILED with the acquirer’s responseCode, in a 201', async () => {
    const p = await authorizedPayment(t, merchant);
    const res = await followUp(t, merchant, p.payId, 'captures', {
      transId: p.transId,
      amount: amount(DECLINED_VALUE),
    });
    expect(res.status).toBe(201);
    expect(res.answer).toMatchObject({ status: 'FAILED', type: 'CAPTURE', amount: amount(DECLINED_VALUE) });
    expect(res.answer.responseCode).not.toBe('00000000');
    expect(res.body.status).toBe('AUTHORIZED');
  });

  it.each([
    ['another currency', { amount: { value: 100, currency: 'EUR' } }, 'amount.currency'],
    ['no amount', { amount: undefined }, 'amount'],
    ['a zero amount', { amount: { value: 0, currency: 'DKK' } }, 'amount.value'],
    ['an unknown field', { surcharge: 5 }, 'surcharge'],
  ])('a capture with %s is refused with 400 VALIDATION_FAILED naming the field', async (_name, patch, field) => {
    const p = await authorizedPayment(t, merchant);
    const body = { transId: p.transId, amount: amount(100), ...patch };
    const res = await followUp(t, merchant, p.payId, 'captures', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    const read = await t.call('GET', `/api/v1/payments/getByPayId/${p.payId}`, { auth: merchant });
    expect(read.body).toMatchObject({ status: 'AUTHORIZED', operations: [{ type: 'AUTHORIZATION' }] });
  });

  it('a reversal amount other than the authorized amount is refused with 400 naming amount.value', async () => {
    const p = await authorizedPayment(t, merchant);
    const res = await followUp(t, merchant, p.payId, 'reversals', { transId: p.transId, amount: amount(5_000) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'amount.value' })]);
  });

  it('an unknown payId answers 404 PAYMENT_NOT_FOUND', async () => {
    for (const payId of ['0'.repeat(32), 'not-a-pay-id']) {
      const res = await followUp(t, merchant, payId, 'captures', { transId: 'x', amount: amount(1) });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('PAYMENT_NOT_FOUND');
    }
  });

  // Money: a retried capture with the same Idempotency-Key captures once.
  it('the same Idempotency-Key and body replays the capture instead of capturing twice; another body is 422', async () => {
    const p = await authorizedPayment(t, merchant);
    const body = { transId: p.transId, amount: amount(2_000) };
    const headers = { 'idempotency-key': `cap-${p.payId}` };
    const first = await followUp(t, merchant, p.payId, 'captures', body, headers);
    const again = await followUp(t, merchant, p.payId, 'captures', body, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const read = await t.call('GET', `/api/v1/payments/getByPayId/${p.payId}`, { auth: merchant });
    expect(read.body.amount.capturedValue).toBe(2_000);
    const other = await followUp(t, merchant, p.payId, 'captures', { ...body, amount: amount(1_000) }, headers);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});
