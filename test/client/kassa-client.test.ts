import { readFileSync } from 'node:fs';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKassaClient, verifyNotification } from '../../src/client/index.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';
import { startReceiver, type TestReceiver } from '../notifications/webhook-receiver.js';

describe('kassa/client types', () => {
  it('src/client/openapi.d.ts is what openapi-typescript generates from openapi.json (run `npm run client:types`)', async () => {
    const doc = readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8');
    const generated = COMMENT_HEADER + astToString(await openapiTS(doc, { silent: true }));
    const committed = readFileSync(new URL('../../src/client/openapi.d.ts', import.meta.url), 'utf8');
    expect(committed).toBe(generated);
  });
});

describe.each(DIALECTS)('kassa/client against a real server (%s)', (dialect) => {
  let t: TestKassa;
  let receiver: TestReceiver;
  let merchant: { merchantId: string; apiKey: string; webhookSecret: string };
  let dispatcher: Agent;
  /** Every URL the client fetched, in order. */
  const fetched: string[] = [];

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    receiver = await startReceiver();
    merchant = await t.createMerchant({ webhookUrl: receiver.url });
    dispatcher = new Agent({ connect: { ca: t.ca } });
  });
  afterAll(async () => {
    await receiver?.close();
    await dispatcher?.close();
    await t?.close();
  });

  /** undici's fetch trusting the test CA, recording each URL. */
  const trustingFetch = (async (input: Request) => {
    fetched.push(input.url);
    const res = await undiciFetch(input.url, {
      method: input.method,
      headers: input.headers as never,
      body: input.method === 'GET' ? undefined : await input.text(),
      dispatcher,
    });
    return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers as never });
  }) as unknown as typeof globalThis.fetch;

  const client = (auth: 'basic' | 'oauth2', now?: () => number) =>
    createKassaClient({
      baseUrl: t.url,
      merchantId: merchant.merchantId,
      apiKey: merchant.apiKey,
      auth,
      fetch: (input, init) => trustingFetch(input instanceof Request ? input : new Request(input, init)),
      now,
    });

  it('Basic: creates a payment with an Idempotency-Key and reads it back, typed', async () => {
    const kassa = client('basic');
    const body = directPayment(testPan('40000000', '1000')) as never;
    const created = await kassa.POST('/api/v2/payments', { body });
    expect(created.response.status).toBe(201);
    expect(created.data?.status).toBe('OK');
    const read = await kassa.GET('/api/v1/payments/getByPayId/{payID}', {
      params: { path: { payID: created.data?.payId ?? '' } },
    });
    expect(read.data?.paymentMethods.card?.bin.accountBin).toBe('40000000');
    // The same key replays instead of paying twice.
    const key = crypto.randomUUID();
    const another = directPayment(testPan('40000000', '1000')) as never;
    const first = await kassa.POST('/api/v2/payments', { body: another, headers: { 'idempotency-key': key } });
    const again = await kassa.POST('/api/v2/payments', { body: another, headers: { 'idempotency-key': key } });
    expect(first.response.status).toBe(201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data?.payId).toBe(first.data?.payId);
  });

  it('POSTs without a key get a fresh Idempotency-Key each: two payments, not a replay', async () => {
    const kassa = client('basic');
    const a = await kassa.POST('/api/v2/payments', { body: directPayment(testPan('40000000', '1000')) as never });
    const b = await kassa.POST('/api/v2/payments', { body: directPayment(testPan('40000000', '1000')) as never });
    expect(a.response.headers.get('idempotent-replayed')).toBeNull();
    expect(b.data?.payId).not.toBe(a.data?.payId);
  });

  it('OAuth 2: one token for many calls, a new one shortly before it expires', async () => {
    let clock = Date.now();
    const kassa = client('oauth2', () => clock);
    fetched.length = 0;
    const p = await kassa.POST('/api/v2/payments', {
      body: directPayment(testPan('40000000', '1000'), { captureMethod: { type: 'MANUAL' } }) as never,
    });
    expect(p.data?.status).toBe('AUTHORIZED');
    const capture = await kassa.POST('/api/v2/payments/{payId}/captures', {
      params: { path: { payId: p.data?.payId ?? '' } },
      body: { transId: 'capture-1', amount: { value: 5_000, currency: 'DKK' } },
    });
    expect(capture.data).toMatchObject({ type: 'CAPTURE', status: 'OK', transId: 'capture-1' });
    const tokenCalls = () => fetched.filter((u) => u.endsWith('/authorization/oauth/token')).length;
    expect(tokenCalls()).toBe(1);
    clock += 3_600_000 - 30_000; // 30 s before the hour-long token runs out: inside the renewal margin
    await kassa.GET('/api/v2/payments/getByPayId/{payID}', { params: { path: { payID: p.data?.payId ?? '' } } });
    expect(tokenCalls()).toBe(2);
  });

  it('a refused call returns the problem (code, responseDescription)', async () => {
    const kassa = client('basic');
    const res = await kassa.GET('/api/v2/payments/getByPayId/{payID}', { params: { path: { payID: 'f'.repeat(32) } } });
    expect(res.response.status).toBe(404);
    expect(res.error).toMatchObject({ code: 'PAYMENT_NOT_FOUND', responseDescription: expect.any(String) });
  });

  // Security: a notification is trusted only with a valid signature over the exact body.
  it('verifyNotification accepts a notification Kassa really delivered and refuses a tampered one', async () => {
    const kassa = client('basic');
    await kassa.POST('/api/v2/payments', { body: directPayment(testPan('40000000', '1000')) as never });
    await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThan(0), { timeout: 15_000 });
    const delivery = receiver.received.find((r) => r.body.includes('"payment.'));
    expect(delivery).toBeDefined();
    const headers = delivery?.headers ?? {};
    const event = verifyNotification(delivery?.body ?? '', headers, merchant.webhookSecret);
    expect(event).toMatchObject({ type: expect.stringMatching(/^payment\./), merchantId: merchant.merchantId });
    expect(
      verifyNotification((delivery?.body ?? '').replace('"OK"', '"FAILED"'), headers, merchant.webhookSecret),
    ).toBeUndefined();
    expect(
      verifyNotification(delivery?.body ?? '', headers, `whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`),
    ).toBeUndefined();
  });
});
