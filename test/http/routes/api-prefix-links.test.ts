import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../../helpers/cards.js';
import { outboxEvents } from '../../helpers/outbox.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

/**
 * `/api/v1` (the seed) and `/api/v2` (Paygate, paygate-v2-wire.md §1) serve one API: an answer's `Location` and
 * `_links` stay under the prefix its request came through, and a replay under an Idempotency-Key carries the first
 * answer's `Location` again (RFC 9110 §10.2.2).
 */
describe('links follow the request’s API prefix', () => {
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa('sqlite');
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK' });
  });
  afterAll(async () => t?.close());

  const sessionBody = () => ({
    transId: `s-${Math.random().toString(36).slice(2, 10)}`,
    amount: { value: 4_200, currency: 'DKK' },
    urls: { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' },
  });

  for (const prefix of ['/api/v1', '/api/v2']) {
    it(`${prefix}: DIRECT and HOSTED payments, their reads and a capture link under ${prefix}`, async () => {
      const api = `${t.url}${prefix}`;
      const direct = await t.call('POST', `${prefix}/payments`, {
        auth: merchant,
        json: directPayment(testPan('40000000', '1000'), { captureMethod: { type: 'MANUAL' } }),
      });
      expect(direct.status).toBe(201);
      const self = `${api}/payments/getByPayId/${direct.body.payId}`;
      expect(direct.headers.get('location')).toBe(self);
      expect(direct.body._links.self.href).toBe(self);

      const read = await t.call('GET', `${prefix}/payments/getByPayId/${direct.body.payId}`, { auth: merchant });
      expect(read.body._links.self.href).toBe(self);
      const byTransId = await t.call('GET', `${prefix}/payments/getByTransId/${direct.body.transId}`, {
        auth: merchant,
      });
      expect(byTransId.body._links.self.href).toBe(self);

      const capture = await t.call('POST', `${prefix}/payments/${direct.body.payId}/captures`, {
        auth: merchant,
        json: { transId: direct.body.transId, amount: { value: 12_500, currency: 'DKK' } },
      });
      expect(capture.status).toBe(201);
      expect(capture.headers.get('location')).toBe(self);
      expect(capture.body.payment._links.self.href).toBe(self);

      const hosted = await t.call('POST', `${prefix}/payments`, {
        auth: merchant,
        json: {
          transId: `h-${Math.random().toString(36).slice(2, 10)}`,
          amount: { value: 4_200, currency: 'DKK' },
          paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
          urls: { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' },
        },
      });
      expect(hosted.status).toBe(202);
      expect(hosted.headers.get('location')).toBe(`${api}/payments/getByPayId/${hosted.body.payId}`);
      expect(hosted.body._links.self.href).toBe(`${api}/payments/getByPayId/${hosted.body.payId}`);

      const session = await t.call('POST', `${prefix}/payments/sessions`, { auth: merchant, json: sessionBody() });
      expect(session.status).toBe(201);
      const sessionUrl = `${api}/payments/sessions/${session.body.sessionId}`;
      expect(session.headers.get('location')).toBe(sessionUrl);
      expect(session.body._links.self.href).toBe(sessionUrl);
      const sessionRead = await t.call('GET', `${prefix}/payments/sessions/${session.body.sessionId}`, {
        auth: merchant,
      });
      expect(sessionRead.body._links.self.href).toBe(sessionUrl);
    });
  }

  it('payment.* events, which answer no request, link under /api/v1', async () => {
    const res = await t.call('POST', '/api/v2/payments', {
      auth: merchant,
      json: directPayment(testPan('40000000', '1000')),
    });
    const events = await outboxEvents(t.kassa.db.kysely, res.body.payId, 'payment.');
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) {
      expect((event.payload._links as { self: { href: string } }).self.href).toBe(
        `${t.url}/api/v1/payments/getByPayId/${res.body.payId}`,
      );
    }
  });

  it('a replay carries the first answer’s Location, whichever prefix it comes through', async () => {
    const cases = [
      { path: '/payments', json: () => directPayment(testPan('40000000', '1000')) },
      { path: '/payments/sessions', json: sessionBody },
    ];
    for (const { path, json } of cases) {
      const key = `key-${Math.random().toString(36).slice(2)}`;
      const body = json();
      const send = (prefix: string) =>
        t.call('POST', `${prefix}${path}`, { auth: merchant, json: body, headers: { 'idempotency-key': key } });
      const first = await send('/api/v2');
      expect(first.status).toBe(201);
      const location = first.headers.get('location');
      expect(location).toMatch(new RegExp(`^${t.url}/api/v2/payments/`));
      for (const prefix of ['/api/v2', '/api/v1']) {
        const again = await send(prefix);
        expect(again.status).toBe(201);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.headers.get('location')).toBe(location);
        expect(again.text).toBe(first.text);
      }
    }
  });

  it('a capture replayed under its key carries Location too', async () => {
    const created = await t.call('POST', '/api/v2/payments', {
      auth: merchant,
      json: directPayment(testPan('40000000', '1000'), { captureMethod: { type: 'MANUAL' } }),
    });
    const capture = () =>
      t.call('POST', `/api/v2/payments/${created.body.payId}/captures`, {
        auth: merchant,
        json: { transId: created.body.transId, amount: { value: 1_000, currency: 'DKK' } },
        headers: { 'idempotency-key': `cap-${created.body.payId}` },
      });
    const first = await capture();
    const again = await capture();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(`${t.url}/api/v2/payments/getByPayId/${created.body.payId}`);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
  });
});
