import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient } from '../helpers/form-client.js';
import { payInHostedSession } from '../helpers/hosted-client.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';
import {
  axeptaCapture,
  axeptaDirectPayment,
  axeptaHostedPayment,
  axeptaHppSession,
  axeptaRefundOrReversal,
  axeptaSubscriptionPayment,
  axeptaSubscriptionStart,
  phpJsonEncode,
} from './client-bodies.js';

// paygate-v2-wire.md for the Axepta PHP library 2.0.0 and the Magento 2, PrestaShop and WooCommerce plugins built on
// it: OAuth 2 token with the credentials in the form, then `OAuth2Api::buildJsonRequest` — Bearer token,
// content-type application/json on every call (GETs carry the body `[]`), bodies from PHP's json_encode (`\/` and
// `\uXXXX` escapes), base URL hard-coded to …/api/v2.
describe.each(DIALECTS)('compat: Axepta PHP library and its shop plugins (%s)', (dialect) => {
  let t: TestKassa;
  let client: FormClient;
  let merchant: { merchantId: string; apiKey: string };
  let token: string;

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    client = new FormClient(t.ca, t.url);
    merchant = await t.createMerchant({ country: 'FR', currency: 'EUR' });
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  /**
   * `buildJsonRequest` + `OAuth2ApiRequest::call` (curl): Bearer, JSON content type, the json_encode text — on GETs
   * too (fetch refuses a GET body, so undici's request sends it as curl does).
   */
  const php = async (method: string, path: string, data: unknown = []) => {
    const dispatcher = new Agent({ connect: { ca: t.ca } });
    try {
      const res = await request(`${t.url}/api/v2${path}`, {
        method: method as 'GET' | 'POST',
        dispatcher,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: phpJsonEncode(data),
      });
      const text = await res.body.text();
      // biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert their shape
      return { status: res.statusCode, body: JSON.parse(text) as any };
    } finally {
      await dispatcher.close();
    }
  };

  /** The keys the library and plugins read from a payment or operation answer. */
  const expectPhpReadable = (body: Record<string, unknown>) => {
    expect(typeof body.payId).toBe('string');
    expect(typeof body.status).toBe('string');
    expect(body.responseCode).toMatch(/^\d{8}$/);
    expect(typeof body.responseDescription).toBe('string');
    expect(Number.isInteger((body.amount as { value: unknown }).value)).toBe(true);
  };

  it('OAuth2Api::getAccessToken: client_id and client_secret in the form; access_token, token_type Bearer, expires_in', async () => {
    const res = await t.call('POST', '/authorization/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: merchant.merchantId, client_secret: merchant.apiKey },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: expect.any(Number) });
    token = res.body.access_token;
    expect(typeof token).toBe('string');
  });

  it.each(['fr', 'FR'])(
    'HPP session (language %s): accepted as json_encode wrote it; _links.redirect.href to pay',
    async (language) => {
      const body = axeptaHppSession('EUR', language);
      const res = await php('POST', '/payments/sessions', body);
      expect(res.status).toBe(201);
      expect(res.body._links.redirect.href).toContain('/hosted/sessions/');
      expect(res.body).toMatchObject({ transId: body.transId, refNr: '000000000042', requestId: '202-42' });
      expect(res.body.amount).toEqual({ value: 1234, currency: 'EUR' });
    },
  );

  const hostedPaid = async (captureType: 'AUTOMATIC' | 'MANUAL') => {
    const body = axeptaHostedPayment('EUR', captureType);
    const created = await php('POST', '/payments', body);
    expect(created.status).toBe(202);
    expectPhpReadable(created.body);
    const paid = await payInHostedSession(
      client,
      t.url,
      created.body._links.redirect.href,
      testPan('40000000', '1000'),
    );
    expect(paid.done.external).toMatch(/^https:\/\/shop\.example\/axepta\/return\?/);
    const read = await php('GET', `/payments/getByPayId/${created.body.payId}`);
    expect(read.status).toBe(200);
    expectPhpReadable(read.body);
    return { body, payId: created.body.payId as string, details: read.body };
  };

  it('REDIRECT card payment, then capture with finishAuth "Y" and refund: each answers status OK', async () => {
    const { body, payId, details } = await hostedPaid('MANUAL');
    expect(details).toMatchObject({
      status: 'AUTHORIZED',
      statementDescriptor: 'MA BOUTIQUE',
      requestId: '202-43',
      billingAddress: { country: 'FRA' },
      metadata: { trigram: 'CVM', saveCard: '' },
    });
    const capture = await php('POST', `/payments/${payId}/captures`, axeptaCapture(body.transId, '2500'));
    expect(capture.status).toBe(201);
    expectPhpReadable(capture.body);
    expect(capture.body).toMatchObject({ payId, status: 'OK', responseCode: '00000000', amount: { value: 2500 } });
    expect(capture.body.payment.status).toBe('OK');
    const refund = await php('POST', `/payments/${payId}/refunds`, axeptaRefundOrReversal(body.transId, '1000'));
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({ status: 'OK', refNr: '000000000042', amount: { value: 1000 } });
  });

  it('reversal of an authorization answers status OK (the plugins check status == "OK")', async () => {
    const { body, payId } = await hostedPaid('MANUAL');
    const reversal = await php('POST', `/payments/${payId}/reversals`, axeptaRefundOrReversal(body.transId, '2500'));
    expect(reversal.status).toBe(201);
    expect(reversal.body).toMatchObject({ status: 'OK', responseCode: '00000000' });
    expect(reversal.body.payment.status).toBe('REVERSED');
  });

  it('an error answer carries what the library prints: responseCode, responseDescription, status', async () => {
    const { body, payId } = await hostedPaid('MANUAL');
    const tooMuch = await php('POST', `/payments/${payId}/captures`, axeptaCapture(body.transId, '999999'));
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body).toMatchObject({ status: 409, responseCode: expect.stringMatching(/^\d{8}$/) });
    expect(tooMuch.body.responseDescription).toBe(tooMuch.body.detail);
  });

  // EMV 3DS 2.2 (Table A.1) requires the browser fields for a browser-channel AReq (deviceChannel 02), and the
  // requestor-initiated channel (03) is for merchant-initiated payments only; paygate-v2-wire.md §2: browserInfo is
  // absent only on stored-credential merchant-initiated payments. A cardholder-initiated DIRECT payment without it
  // cannot be authenticated, and authorizing it without SCA would silently shift the liability: Kassa refuses it
  // naming browserInfo, before anything is stored.
  it.each([
    ['a card payment', {}],
    ['a card payment that saves the card (saveCard)', { saveCard: true }],
  ])('DIRECT mode, %s, as the library sends it (no browserInfo): 400 naming browserInfo, no payment', async (_l, o) => {
    const body = axeptaDirectPayment(testPan('40000000', '1000'), o);
    const res = await php('POST', '/payments', body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['browserInfo']);
    expect(res.body).toMatchObject({ responseCode: expect.stringMatching(/^\d{8}$/) });
    expect(res.body.responseDescription).toContain('browserInfo');
    expect((await php('GET', `/payments/getByTransId/${body.transId}`)).status).toBe(404);
  });

  it('subscription: first payment on the hosted pages stores the card; the DIRECT recurring payment without browserInfo or securityCode is authorized', async () => {
    const first = axeptaSubscriptionStart(new Date().toISOString().slice(0, 10));
    const created = await php('POST', '/payments', first);
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const paid = await payInHostedSession(
      client,
      t.url,
      created.body._links.redirect.href,
      testPan('40000000', '1000'),
    );
    expect(paid.done.external).toMatch(/^https:\/\/shop\.example\/axepta\/return\?/);
    const initial = await php('GET', `/payments/getByPayId/${created.body.payId}`);
    expect(initial.body.status).toBe('OK');
    const card = initial.body.paymentMethods.card;
    expect(typeof card.pseudoCardNumber).toBe('string');
    const next = await php('POST', '/payments', axeptaSubscriptionPayment(card.pseudoCardNumber, card.expiryDate));
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    expectPhpReadable(next.body);
    expect(next.body).toMatchObject({ status: 'OK', responseCode: '00000000', amount: { value: 2500 } });
    expect(next.body.threeDS).toBeUndefined();
  });
});
