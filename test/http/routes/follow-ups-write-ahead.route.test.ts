/**
 * Write-ahead follow-ups, `finishAuth: "Y"` and DELAYED capture over HTTPS (issue 9 defect 3, issue 10 items 2–3):
 * the wire answers, the background sweeps as `kassa serve` runs them, and text that must never reach the acquirer.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AcquirerFollowUpRequest } from '../../../src/domain/ports/acquirer.js';
import { MemorySettlementLedger } from '../../../src/integrations/acquirer-simulator/settlement-ledger.js';
import { SimulatorAcquirer } from '../../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../../src/integrations/bins/csv-bin-table.js';
import { fixedClock } from '../../domain/threeds/three-ds-fixtures.js';
import { authorizedPayment, type Credentials, followUp } from '../../flows/follow-ups.helpers.js';
import { acquirerAround, type FollowUpSend } from '../../helpers/acquirer.js';
import { directPayment, testPan } from '../../helpers/cards.js';
import { DIALECTS } from '../../helpers/dialects.js';
import { outboxEvents } from '../../helpers/outbox.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

const HOUR = 3_600_000;

describe.each(DIALECTS)('write-ahead follow-ups, finishAuth and DELAYED over HTTPS (%s)', (dialect) => {
  let t: TestKassa;
  let merchant: Credentials;
  const clock = fixedClock(new Date().toISOString());
  const ledger = new MemorySettlementLedger();
  /** The next follow-up throws after the simulator booked it (the acquirer's answer is lost). */
  let loseNextAnswer = false;
  /** The next authorization throws after the simulator approved it. */
  let loseNextAuthorization = false;

  beforeAll(async () => {
    const sim = new SimulatorAcquirer(
      CsvBinTable.fromFile(new URL('../../../data/bins.csv', import.meta.url).pathname),
      ledger,
      () => clock.now(),
    );
    const lossy =
      (send: FollowUpSend): FollowUpSend =>
      async (r: AcquirerFollowUpRequest) => {
        const result = await send(r);
        if (loseNextAnswer) {
          loseNextAnswer = false;
          throw new Error('read ETIMEDOUT');
        }
        return result;
      };
    t = await startTestKassa(dialect, {
      clock,
      acquirer: acquirerAround(() => sim, {
        authorize: async (r) => {
          const result = await sim.authorize(r);
          if (loseNextAuthorization) {
            loseNextAuthorization = false;
            throw new Error('read ETIMEDOUT');
          }
          return result;
        },
        followUps: lossy,
      }),
      followUpRecovery: { sweepMs: 100, pendingAfterMs: 1_000 },
      authorizationRecovery: { pendingAfterMs: 1_000 },
    });
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK' });
  });
  afterAll(async () => t?.close());

  const amount = (value: number | string) => ({ value, currency: 'DKK' });
  const later = (ms: number) => clock.set(new Date(clock.now().getTime() + ms).toISOString());
  const followUpsBooked = async (payId: string) =>
    (await ledger.records()).filter((r) => r.payId === payId && r.type !== 'AUTHORIZATION');
  const operationRows = (payId: string) =>
    t.kassa.db.kysely.selectFrom('payment_operation').select(['type', 'status']).where('pay_id', '=', payId).execute();

  // Issue 9 defect 3: text the acquirer must never see is refused at the edge, before anything is written or sent.
  it.each([
    ['refNr', 'NUL', 'r\u00001'],
    ['refNr', 'a C0 control (U+0007)', 'r\u00071'],
    ['refNr', 'a C1 control (U+009B)', 'r\u009B1'],
    ['transId', 'NUL', 't\u00001'],
    ['transId', 'a C0 control (U+001B)', 't\u001B1'],
  ])(
    '%s with %s on captures, refunds and reversals: 400 naming it, no operation, nothing sent to the acquirer',
    async (field, _what, text) => {
      const p = await authorizedPayment(t, merchant);
      for (const kind of ['captures', 'refunds', 'reversals'] as const) {
        const body = { transId: p.transId, amount: amount(1_000), [field]: text };
        const res = await followUp(t, merchant, p.payId, kind, body);
        expect(res.status, kind).toBe(400);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(res.answer.errors.map((e: { field: string }) => e.field)).toContain(field);
      }
      expect(await operationRows(p.payId)).toEqual([{ type: 'AUTHORIZATION', status: 'OK' }]);
      expect(await followUpsBooked(p.payId)).toEqual([]);
    },
  );

  it('an acquirer answer lost in transit answers 201 status PENDING (60020002); the sweep completes it with one payment.captured', async () => {
    const p = await authorizedPayment(t, merchant);
    loseNextAnswer = true;
    const res = await followUp(t, merchant, p.payId, 'captures', { transId: 'cap-lost', amount: amount(3_000) });
    expect(res.status).toBe(201);
    expect(res.answer).toMatchObject({ status: 'PENDING', responseCode: '60020002', amount: amount(3_000) });
    expect(res.answer.payment).toMatchObject({ status: 'AUTHORIZED', amount: { capturedValue: 0 } });
    expect(res.answer.payment.operations.at(-1)).toMatchObject({ status: 'PENDING', xId: res.answer.xId });
    later(2_000);
    await vi.waitFor(
      async () => {
        const details = await t.call('GET', `/api/v1/payments/getByPayId/${p.payId}`, { auth: merchant });
        expect(details.body).toMatchObject({ status: 'OK', amount: { capturedValue: 3_000 } });
      },
      { timeout: 10_000, interval: 100 },
    );
    expect((await outboxEvents(t.kassa.db.kysely, p.payId, 'payment.captured')).length).toBe(1);
    expect((await followUpsBooked(p.payId)).map((r) => r.xId)).toEqual([res.answer.xId]);
  });

  it('a payment whose authorization answer was lost answers 201 PENDING (60020001); the sweep records the sale the acquirer made', async () => {
    loseNextAuthorization = true;
    const res = await t.call('POST', '/api/v1/payments', {
      auth: merchant,
      json: directPayment(testPan('40000000', '1000', '411')),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'PENDING', responseCode: '60020001' });
    const payId = res.body.payId as string;
    later(2_000);
    await vi.waitFor(
      async () => {
        const details = await t.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth: merchant });
        expect(details.body).toMatchObject({
          status: 'OK',
          responseCode: '00000000',
          amount: { capturedValue: 12_500 },
        });
      },
      { timeout: 10_000, interval: 100 },
    );
    expect((await outboxEvents(t.kassa.db.kysely, payId, 'payment.authorized')).length).toBe(1);
    expect((await ledger.records()).filter((r) => r.payId === payId).map((r) => r.type)).toEqual(['SALE']);
  });

  // Money: a retry whose HTTP idempotency record is gone (expired, or its claim abandoned after a database cut) is
  // still answered by the operation the key created, never applied twice.
  it('a retry with the same Idempotency-Key after its stored answer is gone answers the same operation, booked once', async () => {
    const p = await authorizedPayment(t, merchant);
    const headers = { 'idempotency-key': `cap-${p.payId}` };
    const body = { transId: 'cap-once', amount: amount(3_000) };
    const first = await followUp(t, merchant, p.payId, 'captures', body, headers);
    expect(first.status).toBe(201);
    // The stored key is keyed (not the raw header): forget every stored answer of this merchant.
    const forget = async () => {
      const gone = await t.kassa.db.kysely
        .deleteFrom('idempotency_key')
        .where('merchant_id', '=', merchant.merchantId)
        .executeTakeFirst();
      expect(Number(gone.numDeletedRows)).toBeGreaterThan(0);
    };
    await forget();
    const again = await followUp(t, merchant, p.payId, 'captures', body, headers);
    expect(again.status).toBe(201);
    expect(again.answer).toMatchObject({ xId: first.answer.xId, status: 'OK' });
    expect(again.answer.payment.amount.capturedValue).toBe(3_000);
    expect((await followUpsBooked(p.payId)).map((r) => r.xId)).toEqual([first.answer.xId]);
    await forget();
    const other = await followUp(t, merchant, p.payId, 'captures', { ...body, amount: amount(1_000) }, headers);
    expect(other.status).toBe(422);
    expect(other.answer.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await followUpsBooked(p.payId)).toHaveLength(1);
  });

  it('finishAuth "Y" (PHP client style, string amount): the final capture; a further capture is 409 PAYMENT_NOT_CAPTURABLE', async () => {
    const p = await authorizedPayment(t, merchant);
    const res = await followUp(t, merchant, p.payId, 'captures', {
      transId: p.transId,
      amount: amount('4000'),
      finishAuth: 'Y',
    });
    expect(res.status).toBe(201);
    expect(res.answer).toMatchObject({ status: 'OK', responseCode: '00000000' });
    expect(res.answer.payment).toMatchObject({ status: 'OK', amount: { value: 10_000, capturedValue: 4_000 } });
    expect(await followUpsBooked(p.payId)).toEqual([expect.objectContaining({ type: 'CAPTURE', finalCapture: true })]);
    const again = await followUp(t, merchant, p.payId, 'captures', { transId: p.transId, amount: amount(1_000) });
    expect(again.status).toBe(409);
    expect(again.answer.code).toBe('PAYMENT_NOT_CAPTURABLE');
    const tooMuch = await followUp(t, merchant, p.payId, 'refunds', { transId: p.transId, amount: amount(4_001) });
    expect(tooMuch.answer.code).toBe('REFUND_EXCEEDS_CAPTURED');
    // finishAuth "N" is an ordinary partial capture.
    const q = await authorizedPayment(t, merchant);
    await followUp(t, merchant, q.payId, 'captures', { transId: q.transId, amount: amount(4_000), finishAuth: 'N' });
    const rest = await followUp(t, merchant, q.payId, 'captures', { transId: q.transId, amount: amount(6_000) });
    expect(rest.status).toBe(201);
  });

  it.each([
    [{ type: 'DELAYED' }],
    [{ type: 'DELAYED', delayed: { delayedHours: 0 } }],
    [{ type: 'DELAYED', delayed: { delayedHours: 697 } }],
  ])('captureMethod %j is refused with 400 naming captureMethod.delayed…', async (captureMethod) => {
    const res = await t.call('POST', '/api/v1/payments', {
      auth: merchant,
      json: directPayment(testPan('40000010', '1000'), { amount: amount(1_000), captureMethod }),
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).join()).toMatch(/^captureMethod\.delayed/);
  });

  it('DELAYED without delayedHours is refused the same way on a HOSTED payment and a session', async () => {
    const common = {
      amount: amount(1_000),
      captureMethod: { type: 'DELAYED' },
      urls: { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' },
    };
    const hosted = await t.call('POST', '/api/v1/payments', {
      auth: merchant,
      json: { ...common, transId: 'h-delayed', paymentMethods: { type: 'CARD', integrationType: 'HOSTED' } },
    });
    const session = await t.call('POST', '/api/v1/payments/sessions', {
      auth: merchant,
      json: { ...common, transId: 's-delayed' },
    });
    for (const res of [hosted, session]) {
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['captureMethod.delayed.delayedHours']);
    }
  });

  it('DELAYED 1 h: AUTHORIZED, captureMethod echoed, captured in full by the background sweep after 1 h with payment.captured', async () => {
    const captureMethod = { type: 'DELAYED', delayed: { delayedHours: 1 } };
    const res = await t.call('POST', '/api/v1/payments', {
      auth: merchant,
      json: directPayment(testPan('40000010', '1000'), { amount: amount(7_000), captureMethod }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'AUTHORIZED', captureMethod });
    const get = () => t.call('GET', `/api/v1/payments/getByPayId/${res.body.payId}`, { auth: merchant });
    await new Promise((resolve) => setTimeout(resolve, 300)); // three sweeps: not due yet
    expect((await get()).body.status).toBe('AUTHORIZED');
    later(HOUR + 1_000);
    await vi.waitFor(
      async () => expect((await get()).body).toMatchObject({ status: 'OK', amount: { capturedValue: 7_000 } }),
      {
        timeout: 10_000,
        interval: 100,
      },
    );
    const events = await outboxEvents(t.kassa.db.kysely, res.body.payId, 'payment.captured');
    expect(events).toHaveLength(1);
    expect(events[0]?.payload).toMatchObject({ captureMethod, amount: { capturedValue: 7_000 } });
    expect((await followUpsBooked(res.body.payId)).map((r) => [r.type, r.value])).toEqual([['CAPTURE', 7_000]]);
  });
});
