import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_INFO, directPayment, testPan } from '../../helpers/cards.js';
import { DIALECTS } from '../../helpers/dialects.js';
import { outboxEvents } from '../../helpers/outbox.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

describe.each(DIALECTS)('POST /api/v1/payments DIRECT (%s)', (dialect) => {
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK' });
  });
  afterAll(async () => t?.close());

  const pay = (body: Record<string, unknown>, headers?: Record<string, string>) =>
    t.call('POST', '/api/v1/payments', { auth: merchant, json: body, headers });

  it('a frictionless Y card is authorized and captured (AUTOMATIC) with liability shift', async () => {
    const res = await pay(directPayment(testPan('40000000', '1000'), { refNr: 'inv-1', metadata: { cart: '42' } }));
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const p = res.body;
    expect(p.payId).toMatch(/^[0-9a-f]{32}$/);
    expect(res.headers.get('location')).toBe(`${t.url}/api/v1/payments/getByPayId/${p.payId}`);
    expect(p).toMatchObject({
      merchantId: merchant.merchantId,
      refNr: 'inv-1',
      status: 'OK',
      responseCode: '00000000',
      responseDescription: 'Transaction successful',
      amount: { value: 12500, currency: 'DKK', capturedValue: 12500, refundedValue: 0 },
      surcharge: { status: 'NOT_OFFERED', reason: 'DIRECT_INTEGRATION', value: 0, currency: 'DKK' },
      totalAmount: { value: 12500, currency: 'DKK', capturedValue: 12500, refundedValue: 0 },
      captureMethod: { type: 'AUTOMATIC' },
      paymentMethods: {
        type: 'CARD',
        integrationType: 'DIRECT',
        card: {
          brand: 'VISA',
          cardHolderName: 'Test Cardholder',
          first6Digits: '400000',
          last4Digits: testPan('40000000', '1000').slice(-4),
          expiryDate: '203012',
          bin: { accountBin: '40000000', accountRangeLow: '4000000000000000', accountRangeHigh: '4000000099999999' },
          product: 'CONSUMER',
          type: 'credit',
          country: 'DK',
          authenticationData: { transStatus: 'Y', eci: '05', threeDSServerTransId: p.threeDS.threeDSServerTransID },
        },
      },
      threeDS: { transStatus: 'Y', eci: '05', liabilityShift: true },
      metadata: { cart: '42' },
      channel: 'ECOM',
    });
    // wire §4: the top-level xId is the authorization's.
    expect(p.xId).toBe(p.operations[0].xId);
    // threeDSServerTransID is the payId as a canonical UUID (spec §2.1, DESIGN.md §4).
    expect(p.threeDS.threeDSServerTransID.replaceAll('-', '')).toBe(p.payId);
    expect(p.threeDS.threeDSServerTransID).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(p.operations.map((o: { type: string }) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE']);
    expect(
      p.operations.every((o: { status: string; xId: string }) => o.status === 'OK' && /^[0-9a-f]{32}$/.test(o.xId)),
    ).toBe(true);
    expect(JSON.stringify(p)).not.toContain(testPan('40000000', '1000'));
  });

  it('the answer carries the details its payment.authorized event carries, with a key and without', async () => {
    for (const headers of [undefined, { 'idempotency-key': `same-details-${dialect}` }]) {
      const res = await pay(directPayment(testPan('40000000', '1000'), { refNr: 'inv-2' }), headers);
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const events = await outboxEvents(t.database.db.kysely, res.body.payId, 'payment.');
      expect(events).toEqual([{ type: 'payment.authorized', payload: { type: 'payment.authorized', ...res.body } }]);
      expect(Object.keys(events[0]?.payload ?? {})[0]).toBe('type');
      // Read back from the database: the same details.
      const read = await t.call('GET', `/api/v1/payments/getByPayId/${res.body.payId}`, { auth: merchant });
      expect(read.body).toEqual(res.body);
    }
  });

  it('MANUAL capture leaves the payment AUTHORIZED with nothing captured', async () => {
    const res = await pay(directPayment(testPan('51000000', '1000'), { captureMethod: { type: 'MANUAL' } }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'AUTHORIZED',
      responseCode: '00000000',
      amount: { capturedValue: 0 },
      threeDS: { transStatus: 'Y', eci: '02', liabilityShift: true },
      paymentMethods: { card: { brand: 'MASTERCARD' } },
    });
    expect(res.body.operations.map((o: { type: string }) => o.type)).toEqual(['AUTHORIZATION']);
  });

  // Every frictionless scenario of DESIGN.md §6 ends in its documented status and responseCode.
  it.each([
    ['40000000', '1001', 'A', 'OK', '00000000', '06', true],
    ['51000000', '1001', 'A', 'OK', '00000000', '01', true],
    ['40000000', '1002', 'N', 'FAILED', '20010001', '07', false],
    ['40000000', '1003', 'U', 'OK', '00000000', '07', false],
    ['40000000', '1004', 'R', 'FAILED', '20010002', '07', false],
    ['40000000', '1008', 'I', 'OK', '00000000', '07', false],
    ['40000002', '1000', 'Y', 'OK', '00000000', '05', true],
    ['40000001', '1000', 'Y', 'OK', '00000000', '05', true],
    ['40000000', '1100', 'Y', 'FAILED', '20020051', '05', true],
    ['40000000', '1101', 'Y', 'FAILED', '20020005', '05', true],
  ])(
    'BIN %s scenario %s → transStatus %s, status %s, responseCode %s',
    async (bin, scenario, transStatus, status, code, eci, shift) => {
      const res = await pay(directPayment(testPan(bin, scenario)));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status,
        responseCode: code,
        threeDS: { transStatus, eci, liabilityShift: shift },
      });
      if (status === 'FAILED') expect(res.body.amount.capturedValue).toBe(0);
    },
  );

  it('N, U and R carry their transStatusReason', async () => {
    const reasons: Record<string, string> = { '1002': '01', '1003': '08', '1004': '11' };
    for (const [scenario, reason] of Object.entries(reasons)) {
      const res = await pay(directPayment(testPan('40000000', scenario)));
      expect(res.body.threeDS.transStatusReason).toBe(reason);
    }
  });

  it('a declined card is a FAILED payment with a FAILED AUTHORIZATION operation, not an HTTP error', async () => {
    const res = await pay(directPayment(testPan('40000000', '1100')));
    expect(res.status).toBe(201);
    expect(res.body.operations).toHaveLength(1);
    expect(res.body.operations[0]).toMatchObject({ type: 'AUTHORIZATION', status: 'FAILED', responseCode: '20020051' });
  });

  it('a card outside the BIN table authorizes without 3-D Secure and is declined by the sandbox acquirer', async () => {
    const res = await pay(directPayment(testPan('41111111', '1000')));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'FAILED', responseCode: '20020014' });
    expect(res.body.threeDS).toBeUndefined();
  });

  it('getByPayId and getByTransId return the stored details', async () => {
    const body = directPayment(testPan('40000010', '1000'));
    const created = (await pay(body)).body;
    const byPayId = await t.call('GET', `/api/v1/payments/getByPayId/${created.payId}`, { auth: merchant });
    expect(byPayId.status).toBe(200);
    expect(byPayId.body).toEqual(created);
    const byTransId = await t.call('GET', `/api/v1/payments/getByTransId/${encodeURIComponent(String(body.transId))}`, {
      auth: merchant,
    });
    expect(byTransId.body).toEqual(created);
  });

  it('a transId whose latest payment has not failed is refused with TRANS_ID_IN_USE; after a failure it may be reused', async () => {
    const transId = `reuse-${Date.now()}`;
    const failed = await pay(directPayment(testPan('40000000', '1002'), { transId }));
    expect(failed.body.status).toBe('FAILED');
    const retried = await pay(directPayment(testPan('40000000', '1000'), { transId }));
    expect(retried.body.status).toBe('OK');
    const again = await pay(directPayment(testPan('40000000', '1000'), { transId }));
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(again.body.code).toBe('TRANS_ID_IN_USE');
    const latest = await t.call('GET', `/api/v1/payments/getByTransId/${transId}`, { auth: merchant });
    expect(latest.body.payId).toBe(retried.body.payId);
  });

  it('an unknown payId or transId answers 404 PAYMENT_NOT_FOUND', async () => {
    for (const path of [
      '/api/v1/payments/getByPayId/0123456789abcdef0123456789abcdef',
      '/api/v1/payments/getByPayId/nope',
      '/api/v1/payments/getByTransId/none',
    ]) {
      const res = await t.call('GET', path, { auth: merchant });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('PAYMENT_NOT_FOUND');
    }
  });

  it.each([
    [
      'a Luhn failure',
      {
        paymentMethods: {
          type: 'CARD',
          integrationType: 'DIRECT',
          card: { number: '4000000000010002', expiryDate: '203012', securityCode: '123' },
        },
      },
      'paymentMethods.card.number',
    ],
    [
      'an expired card',
      {
        paymentMethods: {
          type: 'CARD',
          integrationType: 'DIRECT',
          card: { number: testPan('40000000', '1000'), expiryDate: '202001', securityCode: '123' },
        },
      },
      'paymentMethods.card.expiryDate',
    ],
    [
      'a bad month',
      {
        paymentMethods: {
          type: 'CARD',
          integrationType: 'DIRECT',
          card: { number: testPan('40000000', '1000'), expiryDate: '203013', securityCode: '123' },
        },
      },
      'paymentMethods.card.expiryDate',
    ],
    ['a fractional amount', { amount: { value: 10.5, currency: 'DKK' } }, 'amount.value'],
    ['a zero amount', { amount: { value: 0, currency: 'DKK' } }, 'amount.value'],
    ['an amount as a decimal string', { amount: { value: '100.00', currency: 'DKK' } }, 'amount.value'],
    ['an unknown currency', { amount: { value: 100, currency: 'XYZ' } }, 'amount.currency'],
    ['a missing transId', { transId: undefined }, 'transId'],
    ['an unknown field', { colour: 'blue' }, 'colour'],
    [
      'a short CVC',
      {
        paymentMethods: {
          type: 'CARD',
          integrationType: 'DIRECT',
          card: { number: testPan('40000000', '1000'), expiryDate: '203012', securityCode: '1' },
        },
      },
      'paymentMethods.card.securityCode',
    ],
    ['a missing card', { paymentMethods: { type: 'CARD', integrationType: 'DIRECT' } }, 'paymentMethods.card.number'],
    ['a missing browserInfo', { browserInfo: undefined }, 'browserInfo'],
    ['APP without sdkInfo', { channel: 'APP', browserInfo: undefined }, 'paymentMethods.card.threeDsPolicy.sdkInfo'],
    ['a non-URL webhook', { urls: { webhook: 'not a url' } }, 'urls.webhook'],
    [
      'a bad challengeWindowSize',
      {
        paymentMethods: {
          type: 'CARD',
          integrationType: 'DIRECT',
          card: {
            number: testPan('40000000', '1000'),
            expiryDate: '203012',
            threeDsPolicy: { challengeWindowSize: '09' },
          },
        },
      },
      'paymentMethods.card.threeDsPolicy.challengeWindowSize',
    ],
    ['a channel outside Paygate’s', { channel: 'BROWSER' }, 'channel'],
    [
      'a timeZoneOffset in words',
      { browserInfo: { ...BROWSER_INFO, timeZoneOffset: 'one hour' } },
      'browserInfo.timeZoneOffset',
    ],
  ])('%s is refused with 400 VALIDATION_FAILED naming the field, and stores nothing', async (_name, patch, field) => {
    const body: Record<string, unknown> = { ...directPayment(testPan('40000000', '1000')), ...patch };
    const res = await pay(JSON.parse(JSON.stringify(body)));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      type: 'urn:kassa:error:VALIDATION_FAILED',
    });
    expect(res.body.requestId).toMatch(/^req_/);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    if (typeof body.transId === 'string') {
      const lookup = await t.call('GET', `/api/v1/payments/getByTransId/${body.transId}`, { auth: merchant });
      expect(lookup.status).toBe(404);
    }
  });

  it('several bad fields are all named in one answer', async () => {
    const res = await pay({
      transId: 'x',
      amount: { value: -1, currency: 'dkk' },
      paymentMethods: { type: 'CARD', integrationType: 'DIRECT' },
    });
    expect(res.status).toBe(400);
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['amount.value', 'amount.currency']));
  });

  it('a Discover card is refused with CARD_BRAND_NOT_SUPPORTED', async () => {
    const res = await pay(directPayment('6011000990139424'));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('CARD_BRAND_NOT_SUPPORTED');
    expect(res.body.errors[0].field).toBe('paymentMethods.card.number');
  });

  it('malformed JSON and a wrong content type are 4xx problems, never 500', async () => {
    const bad = await t.call('POST', '/api/v1/payments', {
      auth: merchant,
      headers: { 'content-type': 'application/json' },
      form: { a: 'b' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_JSON');
    const xml = await t.call('POST', '/api/v1/payments', {
      auth: merchant,
      form: { a: 'b' },
      headers: { 'content-type': 'text/xml' },
    });
    expect(xml.status).toBe(415);
    expect(xml.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  // Security: card numbers and CVCs never reach the database or the logs in clear (DESIGN.md §8).
  // The CVC may occur by chance inside a hex id, so it counts only standing alone.
  const CVC_ALONE = /(?<![0-9a-fA-F])9271(?![0-9a-fA-F])/;
  it('the PAN and CVC appear neither in the database nor in the log output', async () => {
    const pan = testPan('40000000', '1000', '987');
    const body = directPayment(pan);
    (body.paymentMethods as { card: { securityCode: string } }).card.securityCode = '9271';
    await pay(body);
    await pay({ ...directPayment(pan), amount: { value: 'oops' } }); // a validation failure with the PAN in the body
    const logs = t.logs();
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(pan);
    expect(logs).not.toMatch(CVC_ALONE);
    expect(logs).not.toContain('securityCode":"');
    if (t.database.file) {
      const files = [t.database.file, `${t.database.file}-wal`].filter((f) => {
        try {
          readFileSync(f);
          return true;
        } catch {
          return false;
        }
      });
      for (const f of files) {
        const bytes = readFileSync(f).toString('latin1');
        expect(bytes).not.toContain(pan);
        expect(bytes).not.toMatch(CVC_ALONE);
      }
    } else {
      const dump = await t.database.db.kysely.selectFrom('payment').selectAll().execute();
      const ops = await t.database.db.kysely.selectFrom('payment_operation').selectAll().execute();
      const events = await t.database.db.kysely.selectFrom('notification').selectAll().execute();
      const text = JSON.stringify([dump, ops, events]);
      expect(text).toContain(pan.slice(-4));
      expect(text).not.toContain(pan);
    }
  });
});
