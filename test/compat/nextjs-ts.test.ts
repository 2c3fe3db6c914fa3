import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient } from '../helpers/form-client.js';
import { payInHostedSession } from '../helpers/hosted-client.js';
import { outboxEvents } from '../helpers/outbox.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';
import { nextJsSession } from './client-bodies.js';

/** `isAxeptaSuccessfulStatus` of the Next.js client: the statuses it books as paid. */
const SUCCESS = ['AUTHORIZED', 'OK', 'CAPTURE_REQUEST', 'PAID', 'SUCCESS'];

// The Next.js shop's TypeScript Axepta client (lib/checkout/axepta.ts): token with a Basic header and a form
// grant_type, Bearer `${token_type} ${access_token}`, sessions with an Idempotency-Key, reads by payId and transId,
// webhook parsing. It reads members with typeof checks: a member of another JSON type reads as null.
describe.each(DIALECTS)('compat: Next.js shop TypeScript client (%s)', (dialect) => {
  let t: TestKassa;
  let client: FormClient;
  let merchant: { merchantId: string; apiKey: string };
  let auth: { token: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    client = new FormClient(t.ca, t.url);
    merchant = await t.createMerchant({ country: 'FR', currency: 'EUR' });
    const basic = Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64');
    const res = await t.call('POST', '/authorization/oauth/token', {
      headers: { authorization: `Basic ${basic}`, accept: 'application/json' },
      form: { grant_type: 'client_credentials' },
    });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    auth = { token: res.body.access_token };
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  /** The reads of `getAxeptaPaymentByPayId` / `getAxeptaPaymentByTransId`. */
  const readLikeTheClient = (data: Record<string, unknown>) => {
    const amount = data.amount as Record<string, unknown> | undefined;
    return {
      payId: typeof data.payId === 'string' ? data.payId : null,
      transId: typeof data.transId === 'string' ? data.transId : null,
      status: typeof data.status === 'string' ? data.status : null,
      responseCode: typeof data.responseCode === 'string' ? data.responseCode : null,
      responseDescription: typeof data.responseDescription === 'string' ? data.responseDescription : null,
      amountValue: typeof amount?.value === 'number' ? amount.value : null,
      currency: typeof amount?.currency === 'string' ? amount.currency : null,
    };
  };

  it('createAxeptaCheckoutSession, pay, then getByPayId and getByTransId read a paid payment with every member', async () => {
    const body = nextJsSession();
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const created = await t.call('POST', '/api/v2/payments/sessions', { auth, json: body, headers });
    expect(created.status).toBe(201);
    const paymentUrl = String(created.body._links?.redirect?.href ?? '');
    expect(paymentUrl).not.toBe('');
    // The same key and body replay the same session (the client retries with its key).
    const replay = await t.call('POST', '/api/v2/payments/sessions', { auth, json: body, headers });
    expect(replay.body.sessionId).toBe(created.body.sessionId);

    await payInHostedSession(client, t.url, paymentUrl, testPan('40000000', '1000'));
    const byTransId = await t.call('GET', `/api/v2/payments/getByTransId/${encodeURIComponent(body.transId)}`, {
      auth,
    });
    const read = readLikeTheClient(byTransId.body);
    expect(read).toEqual({
      payId: expect.stringMatching(/^[0-9a-f]{32}$/),
      transId: body.transId,
      status: 'OK',
      responseCode: '00000000',
      responseDescription: expect.any(String),
      amountValue: 4_900,
      currency: 'EUR',
    });
    expect(SUCCESS).toContain(read.status);
    const byPayId = await t.call('GET', `/api/v2/payments/getByPayId/${read.payId}`, { auth });
    expect(readLikeTheClient(byPayId.body)).toEqual(read);
    expect(byPayId.body).toMatchObject({ metadata: body.metadata, order: body.order, customerInfo: body.customerInfo });
  });

  it('parseAxeptaWebhookPayload reads merchantId, payId, transId, xId, refNr, status and the amount from the event', async () => {
    const body = nextJsSession();
    const created = await t.call('POST', '/api/v2/payments/sessions', { auth, json: body });
    await payInHostedSession(client, t.url, created.body._links.redirect.href, testPan('40000000', '1000'));
    const read = await t.call('GET', `/api/v2/payments/getByTransId/${body.transId}`, { auth });
    const [event] = await outboxEvents(t.kassa.db.kysely, read.body.payId, 'payment.authorized');
    const data = event?.payload ?? {};
    expect({
      merchantId: typeof data.merchantId === 'string' ? data.merchantId : null,
      payId: typeof data.payId === 'string' ? data.payId : null,
      transId: typeof data.transId === 'string' ? data.transId : null,
      xId: typeof data.xId === 'string' ? data.xId : null,
      status: typeof data.status === 'string' ? data.status : null,
      amountValue: typeof (data.amount as { value?: unknown })?.value === 'number',
    }).toEqual({
      merchantId: merchant.merchantId,
      payId: read.body.payId,
      transId: body.transId,
      xId: read.body.xId,
      status: 'OK',
      amountValue: true,
    });
  });

  it('an error answer gives the client responseDescription to print', async () => {
    const res = await t.call('POST', '/api/v2/payments/sessions', {
      auth,
      json: { ...nextJsSession(), amount: { value: 0, currency: 'EUR' } },
    });
    expect(res.status).toBe(400);
    expect(typeof res.body.responseDescription).toBe('string');
    expect(res.body.responseDescription).toContain('amount.value');
  });
});
