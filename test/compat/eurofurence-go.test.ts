import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient } from '../helpers/form-client.js';
import { payInHostedSession } from '../helpers/hosted-client.js';
import { outboxEvents } from '../helpers/outbox.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';
import { eurofurenceSession } from './client-bodies.js';
import {
  goDecodeErrors,
  NexiCreateCheckoutSessionResponse,
  NexiPaymentQueryResponse,
  WebhookDto,
} from './go-structs.js';

// paygate-v2-wire.md §1–§6 for the Eurofurence registration adapter: Basic auth, POST {base}/payments/sessions,
// GET {base}/payments/getByTransId|getByPayId, webhooks; base ends in /api/v2. Every answer must decode into the
// adapter's structs (a single field of another JSON kind fails the whole decode).
describe.each(DIALECTS)('compat: Eurofurence registration adapter, Go (%s)', (dialect) => {
  let t: TestKassa;
  let client: FormClient;
  let merchant: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    client = new FormClient(t.ca, t.url);
    merchant = await t.createMerchant({ country: 'DE', currency: 'EUR' });
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const createLink = async () => {
    const body = eurofurenceSession();
    const res = await t.call('POST', '/api/v2/payments/sessions', { auth: merchant, json: body });
    return { body, res };
  };

  it('CreatePaymentLink: the adapter’s session body is accepted and the answer decodes with _links.redirect.href', async () => {
    const { res } = await createLink();
    expect(res.status).toBe(201);
    expect(goDecodeErrors(res.body, { struct: () => NexiCreateCheckoutSessionResponse })).toEqual([]);
    expect(res.body._links.redirect.href).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/hosted\/sessions\//);
  });

  it('QueryPaymentLink: a paid link’s details decode into NexiPaymentQueryResponse and echo what the adapter sent', async () => {
    const { body, res } = await createLink();
    const paid = await payInHostedSession(client, t.url, res.body._links.redirect.href, testPan('40000000', '1000'));
    expect(paid.done.external).toMatch(/^https:\/\/reg\.eurofurence\.example\/app\/register\/payment-success\?/);

    for (const path of [`/api/v2/payments/getByTransId/${body.transId}`]) {
      const read = await t.call('GET', path, { auth: merchant });
      expect(read.status).toBe(200);
      expect(goDecodeErrors(read.body, { struct: () => NexiPaymentQueryResponse })).toEqual([]);
      const byPayId = await t.call('GET', `/api/v2/payments/getByPayId/${read.body.payId}`, { auth: merchant });
      expect(goDecodeErrors(byPayId.body, { struct: () => NexiPaymentQueryResponse })).toEqual([]);
      expect(byPayId.body).toEqual(read.body);
      expect(read.body).toMatchObject({
        transId: body.transId,
        merchantId: merchant.merchantId,
        status: 'OK',
        responseCode: '00000000',
        language: 'de',
        statementDescriptor: 'Eurofurence 2026',
        simulationMode: '0000',
        amount: {
          value: 15_500,
          currency: 'EUR',
          taxTotal: body.amount.taxTotal,
          netItemTotal: body.amount.netItemTotal,
        },
        order: body.order,
        customerInfo: { email: 'attendee@example.org' },
        urls: body.urls,
        paymentMethods: {
          type: 'CARD',
          card: { brand: 'VISA', bin: { accountBin: '40000000' }, last4Digits: expect.stringMatching(/^\d{4}$/) },
        },
      });
      expect(read.body.xId).toMatch(/^[0-9a-f]{32}$/);
    }
  });

  it('the webhook body the adapter decodes (WebhookDto) has every field in its kind, with a status it books', async () => {
    const { body, res } = await createLink();
    await payInHostedSession(client, t.url, res.body._links.redirect.href, testPan('40000000', '1000'));
    const read = await t.call('GET', `/api/v2/payments/getByTransId/${body.transId}`, { auth: merchant });
    const events = await outboxEvents(t.kassa.db.kysely, read.body.payId, 'payment.');
    expect(events.map((e) => e.type)).toContain('payment.authorized');
    for (const event of events) {
      expect(goDecodeErrors(event.payload, { struct: () => WebhookDto })).toEqual([]);
      expect(goDecodeErrors(event.payload, { struct: () => NexiPaymentQueryResponse })).toEqual([]);
    }
    const last = events.at(-1)?.payload;
    expect(last).toMatchObject({ payId: read.body.payId, transId: body.transId, paymentMethods: { type: 'CARD' } });
    expect(['OK', 'AUTHORIZED']).toContain(last?.status);
  });

  it('the Go kind check catches what broke the adapter before: card.bin as a string', () => {
    const broken = { paymentMethods: { card: { bin: '40000000' } }, amount: { value: '15500' } };
    expect(goDecodeErrors(broken, { struct: () => NexiPaymentQueryResponse })).toEqual([
      '$.paymentMethods.card.bin: cannot unmarshal string into object',
      '$.amount.value: cannot unmarshal string into int64',
    ]);
  });
});
