import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

/** What a route may name: a payment (and its transId), one of its notifications, a checkout session. */
type Target = { payId: string; transId: string; notificationId: string; sessionId: string };

/**
 * Every merchant route that names a resource, with how to call it. New routes join this list, so that the tenancy
 * guarantee is checked once for all (Unkey's common tests).
 */
const PAYMENT_ROUTES: {
  name: string;
  method: string;
  path: (p: Target) => string;
  body?: (p: Target) => unknown;
  /** Creation overrides of a fresh payment for this route (one the owner's call can succeed on). */
  create?: Record<string, unknown>;
}[] = [
  { name: 'getByPayId', method: 'GET', path: (p) => `/api/v1/payments/getByPayId/${p.payId}` },
  { name: 'getByTransId', method: 'GET', path: (p) => `/api/v1/payments/getByTransId/${p.transId}` },
  {
    name: 'captures',
    method: 'POST',
    path: (p) => `/api/v1/payments/${p.payId}/captures`,
    body: (p) => ({ transId: p.transId, amount: { value: 100, currency: 'DKK' } }),
    create: { captureMethod: { type: 'MANUAL' } },
  },
  {
    name: 'refunds',
    method: 'POST',
    path: (p) => `/api/v1/payments/${p.payId}/refunds`,
    body: (p) => ({ transId: p.transId, amount: { value: 100, currency: 'DKK' } }),
    create: {},
  },
  {
    name: 'reversals',
    method: 'POST',
    path: (p) => `/api/v1/payments/${p.payId}/reversals`,
    body: (p) => ({ transId: p.transId }),
    create: { captureMethod: { type: 'MANUAL' } },
  },
  { name: 'notifications list', method: 'GET', path: (p) => `/api/v1/notifications?payId=${p.payId}` },
  {
    name: 'notification redeliver',
    method: 'POST',
    path: (p) => `/api/v1/notifications/${p.notificationId}/redeliver`,
    body: () => ({}),
  },
  { name: 'session', method: 'GET', path: (p) => `/api/v1/payments/sessions/${p.sessionId}` },
];

const MISSING: Target = {
  payId: '0'.repeat(32),
  transId: 'missing-trans-id',
  notificationId: 'msg_00000000000000000000000000000000',
  sessionId: '0'.repeat(32),
};

describe.each(DIALECTS)('tenancy (%s)', (dialect) => {
  let t: TestKassa;
  let owner: { merchantId: string; apiKey: string };
  let stranger: { merchantId: string; apiKey: string };
  let payment: Target;

  /** A payment of the owner, with the id of its first notification and a session of the owner. */
  async function targetOf(created: { payId: string; transId: string }): Promise<Target> {
    const list = await t.call('GET', `/api/v1/notifications?payId=${created.payId}`, { auth: owner });
    const session = await t.call('POST', '/api/v1/payments/sessions', {
      auth: owner,
      json: {
        transId: `tenancy-session-${Math.random().toString(36).slice(2)}`,
        amount: { value: 100, currency: 'DKK' },
        urls: { return: 'https://shop.example/r', cancel: 'https://shop.example/c' },
      },
    });
    return { ...created, notificationId: list.body.notifications[0].id, sessionId: session.body.sessionId };
  }

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    // A sandbox merchant with a webhook URL nobody listens on: its events exist and may be redelivered.
    owner = await t.createMerchant({ webhookUrl: 'http://127.0.0.1:9/kassa-events' });
    stranger = await t.createMerchant();
    const created = await t.call('POST', '/api/v1/payments', {
      auth: owner,
      json: directPayment(testPan('40000000', '1000')),
    });
    payment = await targetOf({ payId: created.body.payId, transId: created.body.transId });
  });
  afterAll(async () => t?.close());

  // Security: another merchant's payment is answered exactly like a missing one.
  it.each(PAYMENT_ROUTES)('$name: another merchant gets the same 404 as for a missing payment', async (route) => {
    let target = payment;
    if (route.create) {
      const created = await t.call('POST', '/api/v1/payments', {
        auth: owner,
        json: directPayment(testPan('40000000', '1000'), route.create),
      });
      target = { ...payment, payId: created.body.payId, transId: created.body.transId };
    }
    const body = route.body?.(target);
    const own = await t.call(route.method, route.path(target), { auth: owner, json: body });
    expect(own.status).toBeLessThan(300);
    const foreign = await t.call(route.method, route.path(target), { auth: stranger, json: body });
    const missing = await t.call(route.method, route.path(MISSING), {
      auth: stranger,
      json: body,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe(missing.body.code);
    expect(foreign.body.title).toBe(missing.body.title);
  });

  it.each(PAYMENT_ROUTES)('$name: no credentials answers 401', async (route) => {
    const res = await t.call(route.method, route.path(payment), { json: route.body?.(payment) });
    expect(res.status).toBe(401);
  });
});
