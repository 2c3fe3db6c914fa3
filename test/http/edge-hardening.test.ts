import { connect } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

/** Issue 9, "weaknesses to close": what the edge of the API refuses, and in which order. */
describe('edge hardening (issue 9)', () => {
  let t: TestKassa;
  let m: { merchantId: string; apiKey: string };
  const VISA = testPan('40000000', '1000');
  const MASTERCARD = testPan('51000000', '1000');

  beforeAll(async () => {
    t = await startTestKassa('sqlite');
    m = await t.createMerchant();
  });
  afterAll(async () => t?.close());

  const session = (overrides: Record<string, unknown> = {}) => ({
    transId: `s-${Math.random().toString(36).slice(2)}`,
    amount: { value: 12_500, currency: 'DKK' },
    urls: { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' },
    ...overrides,
  });

  describe('authentication comes before body validation', () => {
    it.each([
      ['payments', '/api/v1/payments'],
      ['sessions', '/api/v1/payments/sessions'],
      ['captures', '/api/v1/payments/0123456789abcdef0123456789abcdef/captures'],
      ['reversals', '/api/v2/payments/0123456789abcdef0123456789abcdef/reversals'],
    ])('an unauthenticated %s request with an invalid body gets 401, not 400', async (_name, path) => {
      const res = await t.call('POST', path, { json: { amount: 'not an amount', unknown: true } });
      expect(res.status, res.text).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });

    it('an unauthenticated request with a body that is not JSON gets 401, not 400 or 415', async () => {
      for (const [type, body] of [
        ['application/json', '{not json'],
        ['text/plain', 'hello'],
      ] as const) {
        const res = await t.call('POST', '/api/v1/payments', { body, headers: { 'content-type': type } });
        expect(res.status, `${type}: ${res.text}`).toBe(401);
      }
    });

    it('an authenticated request with an invalid body still gets 400 naming the field', async () => {
      const res = await t.call('POST', '/api/v1/payments', { auth: m, json: { ...directPayment(VISA), amount: 'x' } });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.errors)).toContain('amount');
    });
  });

  describe('JSON routes take application/json only', () => {
    it.each([
      ['text/plain', 'text/plain'],
      ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
      ['application/problem+json', 'application/problem+json'],
      ['text/plain; charset=utf-8', 'text/plain'],
    ])('a %s body on POST /payments gets 415 problem+json naming the media type', async (type, named) => {
      const res = await t.call('POST', '/api/v1/payments', {
        auth: m,
        body: JSON.stringify(directPayment(VISA)),
        headers: { 'content-type': type },
      });
      expect(res.status, res.text).toBe(415);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(res.body.detail).toContain(named);
    });

    it('a body without Content-Type gets 415', async () => {
      const { hostname, port } = new URL(t.url);
      const body = JSON.stringify(session());
      const auth = Buffer.from(`${m.merchantId}:${m.apiKey}`).toString('base64');
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: hostname, port: Number(port), ca: t.ca }, () => {
          socket.write(
            `POST /api/v1/payments/sessions HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Basic ${auth}\r\n` +
              `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
          );
        });
        let text = '';
        socket.on('data', (c: Buffer) => {
          text += c.toString('utf8');
        });
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 415 /);
      expect(answer).toMatch(/content-type: application\/problem\+json/i);
      expect(answer).toContain('without Content-Type');
    });

    it('a body with a Content-Encoding Kassa does not decode gets 415 naming it (RFC 9110 §15.5.16); identity is fine', async () => {
      const body = gzipSync(JSON.stringify(session()));
      for (const coding of ['gzip', 'br']) {
        const res = await t.call('POST', '/api/v1/payments/sessions', {
          auth: m,
          body: coding === 'gzip' ? body.toString('latin1') : JSON.stringify(session()),
          headers: { 'content-type': 'application/json', 'content-encoding': coding },
        });
        expect(res.status, coding).toBe(415);
        expect(res.headers.get('accept-encoding')).toBe('identity');
        expect(res.body.errors).toEqual([
          { field: 'content-encoding', message: `must be absent or identity (got ${coding})` },
        ]);
      }
      const plain = await t.call('POST', '/api/v1/payments/sessions', {
        auth: m,
        body: JSON.stringify(session()),
        headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
      });
      expect(plain.status).toBe(201);
    });

    it('application/json with a charset parameter is accepted', async () => {
      const res = await t.call('POST', '/api/v1/payments/sessions', {
        auth: m,
        body: JSON.stringify(session()),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(res.status, res.text).toBe(201);
    });

    it('the OAuth token endpoint still takes a form (RFC 6749 §4.4)', async () => {
      const res = await t.call('POST', '/authorization/oauth/token', {
        form: { grant_type: 'client_credentials', client_id: m.merchantId, client_secret: m.apiKey },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.access_token).toEqual(expect.any(String));
    });
  });

  describe('duplicate JSON member names', () => {
    it.each([
      ['{"transId":"a","transId":"b"}', 'transId'],
      ['{"amount":{"value":100,"currency":"DKK","value":1}}', 'amount.value'],
      ['{"order":{"items":[{"name":"a"},{"name":"b","name":"c"}]}}', 'order.items.1.name'],
      ['{"transId":"a:b\\":","urls":{"return":"https://x.example:1/"},"transId":"c"}', 'transId'],
    ])('%s gets 400 naming %s', async (body, field) => {
      const res = await t.call('POST', '/api/v1/payments/sessions', {
        auth: m,
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.errors).toEqual([{ field, message: expect.stringMatching(/more than once/) }]);
    });

    it('the same name in different objects is fine', async () => {
      const res = await t.call('POST', '/api/v1/payments/sessions', {
        auth: m,
        json: session({
          order: {
            items: [
              { name: 'a', quantity: 1 },
              { name: 'b', quantity: 2 },
            ],
          },
        }),
      });
      expect(res.status, res.text).toBe(201);
    });

    it('prototype poisoning is still refused', async () => {
      const res = await t.call('POST', '/api/v1/payments/sessions', {
        auth: m,
        body: '{"transId":"x","__proto__":{"admin":true}}',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
    });
  });

  describe('order lines', () => {
    it('lines that add up to amount.value are accepted (grossPrice × quantity − discountAmount + shipping)', async () => {
      const res = await t.call('POST', '/api/v1/payments/sessions', {
        auth: m,
        json: session({
          amount: { value: 12_500, currency: 'DKK', grossShippingAmount: 500 },
          order: {
            items: [
              { name: 'Beans', quantity: 2, grossPrice: 5_000, discountAmount: 1_000 },
              { name: 'Mug', quantity: 1, grossPrice: 3_000 },
            ],
          },
        }),
      });
      expect(res.status, res.text).toBe(201);
    });

    it('{name, taxRate} lines without prices are not summed', async () => {
      const res = await t.call('POST', '/api/v1/payments/sessions', {
        auth: m,
        json: session({ order: { items: [{ name: 'Beans', taxRate: 2500 }] } }),
      });
      expect(res.status, res.text).toBe(201);
    });

    it('lines that do not add up to amount.value get 400 naming order.items', async () => {
      for (const [path, body] of [
        [
          '/api/v1/payments/sessions',
          session({ order: { items: [{ name: 'Beans', quantity: 2, grossPrice: 5_000 }] } }),
        ],
        [
          '/api/v1/payments',
          directPayment(VISA, { order: { items: [{ name: 'Beans', quantity: 1, grossPrice: 100 }] } }),
        ],
      ] as const) {
        const res = await t.call('POST', path, { auth: m, json: body });
        expect(res.status, res.text).toBe(400);
        expect(res.body.errors).toEqual([{ field: 'order.items', message: expect.stringContaining('12500') }]);
      }
    });

    it.each(['grossPrice', 'netPrice', 'discountAmount', 'taxAmount'])(
      'a negative %s gets 400 naming order.items.<i>.<member>',
      async (member) => {
        const res = await t.call('POST', '/api/v1/payments/sessions', {
          auth: m,
          json: session({ order: { items: [{ name: 'ok' }, { name: 'Beans', [member]: -1 }] } }),
        });
        expect(res.status, res.text).toBe(400);
        expect(res.body.errors).toContainEqual({ field: `order.items.1.${member}`, message: expect.any(String) });
      },
    );

    it('a non-finite price (1e400 parses to Infinity) gets 400 naming the member', async () => {
      const res = await t.call('POST', '/api/v1/payments/sessions', {
        auth: m,
        body: JSON.stringify(session()).replace(/}$/, ',"order":{"items":[{"name":"x","grossPrice":1e400}]}}'),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, res.text).toBe(400);
      expect(JSON.stringify(res.body.errors)).toContain('order.items.0.grossPrice');
    });
  });

  describe('security code length', () => {
    it.each([
      ['Visa', VISA],
      ['Mastercard', MASTERCARD],
    ])('a 4-digit securityCode on %s gets 400 naming paymentMethods.card.securityCode', async (_brand, pan) => {
      const body = directPayment(pan);
      (body.paymentMethods as { card: { securityCode: string } }).card.securityCode = '1234';
      const res = await t.call('POST', '/api/v1/payments', { auth: m, json: body });
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'paymentMethods.card.securityCode', message: expect.any(String) }]);
      expect(res.text).not.toContain('1234');
    });

    it('a 3-digit securityCode on Visa is accepted', async () => {
      const res = await t.call('POST', '/api/v1/payments', { auth: m, json: directPayment(VISA) });
      expect(res.status, res.text).toBe(201);
    });
  });

  describe('logs', () => {
    // Security: secrets in query strings (a client_secret sent the wrong way, hosted-link tokens) never reach the log.
    it('query values are redacted in logged URLs', async () => {
      await t.call('GET', '/hosted/sessions/abc?t=hosted-link-token-SECRET1&lang=da');
      await t.call(
        'POST',
        '/authorization/oauth/token?client_secret=client-secret-SECRET2&grant_type=client_credentials',
        {
          form: { client_id: m.merchantId, client_secret: 'x' },
        },
      );
      await t.call('GET', '/threeds/x/method?token=method-token-SECRET3');
      await t.kassa.app.close(); // flushes the log
      const logs = t.logs();
      expect(logs).toContain('client_secret=[redacted]');
      expect(logs).toContain('lang=da');
      for (const secret of ['SECRET1', 'SECRET2', 'SECRET3']) expect(logs).not.toContain(secret);
    });
  });
});
