import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizedPayment, followUp } from '../flows/follow-ups.helpers.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';
import { axeptaHostedPayment, eurofurenceSession, nextJsSession } from './client-bodies.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * The published schema made strict: every object that lists its properties refuses others, so an answer member the
 * contract does not describe (or describes with another type) fails.
 */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, strict(v)]));
  if (out.type === 'object' && out.properties !== undefined && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

// Kassa's real answers against the JSON Schemas it publishes, generated from src/contracts/ (wire §3, §4).
describe.each(DIALECTS)('compat: JSON Schemas of the payment details and the follow-up answer (%s)', (dialect) => {
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
  let details: ReturnType<Ajv2020['compile']>;
  let followUpAnswer: ReturnType<Ajv2020['compile']>;

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK' });
    const schema = async (name: string) => {
      const res = await t.call('GET', `/schemas/${name}`);
      expect(res.headers.get('content-type')).toMatch(/^application\/schema\+json/);
      return strict(res.body) as Record<string, unknown>;
    };
    details = ajv.compile(await schema('payment-details.json'));
    followUpAnswer = ajv.compile(await schema('follow-up-response.json'));
  });
  afterAll(async () => t?.close());

  const expectValid = (validate: ReturnType<Ajv2020['compile']>, body: unknown) => {
    validate(body);
    expect(validate.errors ?? []).toEqual([]);
  };

  it('DIRECT answers (OK, FAILED, challenge PENDING) and reads match the payment details schema', async () => {
    for (const scenario of ['1000', '1001', '1100', '1005']) {
      const res = await t.call('POST', '/api/v2/payments', {
        auth: merchant,
        json: directPayment(testPan('40000000', scenario)),
      });
      expect(res.status).toBe(201);
      expectValid(details, res.body);
      const read = await t.call('GET', `/api/v1/payments/getByPayId/${res.body.payId}`, { auth: merchant });
      expectValid(details, read.body);
    }
  });

  it('answers to the public clients’ bodies (with every informational member echoed) match it', async () => {
    const hosted = await t.call('POST', '/api/v2/payments', {
      auth: merchant,
      json: { ...axeptaHostedPayment('DKK') },
    });
    expect(hosted.status).toBe(202);
    expectValid(details, hosted.body);
    const everything = directPayment(testPan('40000000', '1000'), {
      ...eurofurenceSession('DKK'),
      ...nextJsSession('DKK'),
      paymentMethods: directPayment(testPan('40000000', '1000')).paymentMethods,
      fraudData: { deliveryEmail: 'a@example.org', giftCardAmount: 100, preOrderPurchaseIndicator: false },
      paymentFacilitator: { subMerchantId: 'sub-1', subMerchantName: 'Stall 4' },
      device: { deviceType: 'DESKTOP', confidence: 80, browserLanguages: ['da', 'en'] },
      remittanceInfo: 'Invoice 42',
      allowedPaymentMethod: ['CARD'],
      referencePayId: 'f'.repeat(32),
      externalIntegrationId: 'M2_2.0.0',
      captureMethod: { type: 'MANUAL' },
      credentialOnFile: undefined,
    });
    const res = await t.call('POST', '/api/v2/payments', { auth: merchant, json: everything });
    expect(res.status).toBe(201);
    expectValid(details, res.body);
    expect(res.body).toMatchObject({
      fraudData: { giftCardAmount: 100 },
      paymentFacilitator: { subMerchantId: 'sub-1' },
      device: { confidence: 80 },
      remittanceInfo: 'Invoice 42',
      allowedPaymentMethod: ['CARD'],
      externalIntegrationId: 'M2_2.0.0',
      browserInfo: { timeZoneOffset: '-60', javaEnabled: false },
    });
  });

  it('capture, refund and reversal answers match the follow-up answer schema', async () => {
    const p = await authorizedPayment(t, merchant);
    const capture = await followUp(t, merchant, p.payId, 'captures', {
      transId: p.transId,
      amount: { value: 4_000, currency: 'DKK' },
    });
    expectValid(followUpAnswer, capture.answer);
    const refund = await followUp(t, merchant, p.payId, 'refunds', {
      transId: 'refund-1',
      amount: { value: '1000', currency: 'DKK' },
    });
    expectValid(followUpAnswer, refund.answer);
    const q = await authorizedPayment(t, merchant);
    const reversal = await followUp(t, merchant, q.payId, 'reversals', { transId: q.transId });
    expectValid(followUpAnswer, reversal.answer);
  });

  it('the strict schema refuses a card bin as a string (what broke the Go client)', () => {
    const broken = { paymentMethods: { type: 'CARD', integrationType: 'DIRECT', card: { bin: '40000000' } } };
    expect(details(broken)).toBe(false);
    expect(details.errors?.map((e) => e.instancePath)).toContain('/paymentMethods/card/bin');
  });
});
