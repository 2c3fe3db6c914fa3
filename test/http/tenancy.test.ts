import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

/**
 * Every merchant route that names a payment, with how to call it. New routes join this list, so that the tenancy
 * guarantee is checked once for all (Unkey's common tests).
 */
const PAYMENT_ROUTES: {
  name: string;
  method: string;
  path: (p: { payId: string; transId: string }) => string;
  body?: unknown;
}[] = [
  { name: 'getByPayId', method: 'GET', path: (p) => `/api/v1/payments/getByPayId/${p.payId}` },
  { name: 'getByTransId', method: 'GET', path: (p) => `/api/v1/payments/getByTransId/${p.transId}` },
];

describe.each(DIALECTS)('tenancy (%s)', (dialect) => {
  let t: TestKassa;
  let owner: { merchantId: string; apiKey: string };
  let stranger: { merchantId: string; apiKey: string };
  let payment: { payId: string; transId: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    owner = await t.createMerchant();
    stranger = await t.createMerchant();
    const created = await t.call('POST', '/api/v1/payments', {
      auth: owner,
      json: directPayment(testPan('40000000', '1000')),
    });
    payment = { payId: created.body.payId, transId: created.body.transId };
  });
  afterAll(async () => t?.close());

  // Security: another merchant's payment is answered exactly like a missing one.
  it.each(PAYMENT_ROUTES)('$name: another merchant gets the same 404 as for a missing payment', async (route) => {
    const own = await t.call(route.method, route.path(payment), { auth: owner, json: route.body });
    expect(own.status).toBeLessThan(300);
    const foreign = await t.call(route.method, route.path(payment), { auth: stranger, json: route.body });
    const missing = await t.call(route.method, route.path({ payId: '0'.repeat(32), transId: 'missing-trans-id' }), {
      auth: stranger,
      json: route.body,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe(missing.body.code);
    expect(foreign.body.title).toBe(missing.body.title);
  });

  it.each(PAYMENT_ROUTES)('$name: no credentials answers 401', async (route) => {
    const res = await t.call(route.method, route.path(payment), { json: route.body });
    expect(res.status).toBe(401);
  });
});
