import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

/** Helmet's headers (app.ts) on every kind of answer: API success and problem answers, health, the docs page. */
describe('security headers', () => {
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };
  beforeAll(async () => {
    t = await startTestKassa('sqlite');
    merchant = await t.createMerchant();
  });
  afterAll(async () => t?.close());

  it.each([
    ['an API answer', 'POST', '/api/v1/payments/sessions', true, 201],
    ['an unauthenticated request', 'GET', '/api/v1/payments/getByPayId/0123456789abcdef0123456789abcdef', false, 401],
    ['an unknown payment', 'GET', '/api/v2/payments/getByPayId/0123456789abcdef0123456789abcdef', true, 404],
    ['no route', 'GET', '/no/such/route', false, 404],
    ['the health check', 'GET', '/healthz', false, 200],
    ['the API docs page', 'GET', '/docs/static/index.html', false, 200],
  ])('%s carries HSTS, nosniff, frame and referrer policies', async (_name, method, path, auth, status) => {
    const json =
      method === 'POST'
        ? {
            transId: `sh-${Date.now()}`,
            amount: { value: 1_000, currency: 'DKK' },
            urls: { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' },
          }
        : undefined;
    const res = await t.call(method, path, { ...(auth && { auth: merchant }), ...(json && { json }) });
    expect(res.status, res.text).toBe(status);
    expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});
