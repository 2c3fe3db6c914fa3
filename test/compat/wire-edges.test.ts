import { generateKeyPairSync } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkInfo } from '../domain/threeds/three-ds-fixtures.js';
import { BROWSER_INFO, directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient } from '../helpers/form-client.js';
import { payInHostedSession } from '../helpers/hosted-client.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const URLS = { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' };
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Shapes real Paygate v2 clients send or read that a black-box review found refused or missing (paygate-v2-wire.md §2:
 * "nothing a real client sends may be [refused]", §4: what clients read), and browser data EMV 3DS cannot carry as a
 * browser reports it. Alike on both databases.
 */
describe.each(DIALECTS)('compat: wire shapes at the edges (%s)', (dialect) => {
  let t: TestKassa;
  let m: { merchantId: string; apiKey: string };
  let client: FormClient;

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    m = await t.createMerchant();
    client = new FormClient(t.ca, t.url);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const pay = (body: unknown) => t.call('POST', '/api/v2/payments', { auth: m, json: body });
  const session = (body: Record<string, unknown>) =>
    t.call('POST', '/api/v2/payments/sessions', {
      auth: m,
      json: {
        transId: `s-${Math.random().toString(36).slice(2)}`,
        amount: { value: 1500, currency: 'DKK' },
        urls: URLS,
        ...body,
      },
    });
  const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => answer.body.errors?.map((e) => e.field);
  const storedPayments = async (transId: string) =>
    t.database.db.kysely.selectFrom('payment').select('pay_id').where('trans_id', '=', transId).execute();
  /** A session created with `body` and paid with a frictionless Visa test card: its payment's payId. */
  const paidSession = async (body: Record<string, unknown>) => {
    const created = await session(body);
    expect(created.status).toBe(201);
    const href = created.body._links.redirect.href;
    const paid = await payInHostedSession(client, t.url, href, testPan('40000000', '1000'));
    expect(paid.done.external).toMatch(/^https:\/\/shop\.example\/return\?/);
    return new URL(paid.done.external ?? '').searchParams.get('PayID') ?? '';
  };

  it('a session takes paymentMethods.card.eventToken, as payments do (wire §2), and its payment keeps it', async () => {
    const payId = await paidSession({ paymentMethods: { card: { eventToken: 'PRE_AUTH' } } });
    const row = await t.database.db.kysely
      .selectFrom('payment')
      .select('informational')
      .where('pay_id', '=', payId)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.informational ?? '{}').card).toMatchObject({ eventToken: 'PRE_AUTH' });
    const unknown = await session({ paymentMethods: { card: { eventToken: 'SOMETIME' } } });
    expect(unknown.status).toBe(400);
    expect(fieldsOf(unknown)).toEqual(['paymentMethods.card.eventToken']);
  });

  it('a hosted payment paid without a name on the card reads back cardHolderName "" (a string, as clients read it)', async () => {
    const payId = await paidSession({});
    const read = await t.call('GET', `/api/v2/payments/getByPayId/${payId}`, { auth: m });
    expect(read.body.status).toBe('OK');
    expect(read.body.paymentMethods.card.cardHolderName).toBe('');
    const direct = await pay(directPayment(testPan('40000000', '1000')));
    expect(direct.body.paymentMethods.card.cardHolderName).toBe('Test Cardholder');
  });

  it('customerInfo.email "" (the Go client sends email without omitempty) is taken and echoed; a malformed one is not', async () => {
    const body = directPayment(testPan('40000000', '1000'), { customerInfo: { firstName: 'Ann', email: '' } });
    const created = await pay(body);
    expect(created.status).toBe(201);
    expect(created.body.customerInfo).toEqual({ firstName: 'Ann', email: '' });
    expect((await session({ customerInfo: { email: '' } })).status).toBe(201);
    const bad = await pay(directPayment(testPan('40000000', '1000'), { customerInfo: { email: 'not-an-address' } }));
    expect(bad.status).toBe(400);
    // One error, from the first alternative: not also "must NOT have more than 0 characters" from the "" one.
    expect(bad.body.errors).toEqual([{ field: 'customerInfo.email', message: 'must match format "email"' }]);
  });

  it("a session's browserInfo needs no member (informational there); a DIRECT payment's still needs what the AReq needs", async () => {
    // Its payment echoes it, and the details still match the published schema.
    const payId = await paidSession({ browserInfo: { javaScriptEnabled: false } });
    const read = await t.call('GET', `/api/v2/payments/getByPayId/${payId}`, { auth: m });
    expect(read.body.browserInfo).toEqual({ javaScriptEnabled: false });
    const schema = await t.call('GET', '/schemas/payment-details.json');
    const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
    expect(ajv.validate(schema.body, read.body), ajv.errorsText()).toBe(true);
    const direct = await pay(
      directPayment(testPan('40000000', '1000'), { browserInfo: { javaScriptEnabled: false, language: 'da' } }),
    );
    expect(direct.status).toBe(400);
    expect(fieldsOf(direct)).toEqual(expect.arrayContaining(['browserInfo.acceptHeaders', 'browserInfo.userAgent']));
  });

  it('a 10-bit display (colorDepth 30) and a long language tag authenticate: the AReq carries EMVCo values', async () => {
    const browserInfo = { ...BROWSER_INFO, colorDepth: 30, language: 'zh-Hant-TW' };
    const created = await pay(directPayment(testPan('40000000', '1000'), { browserInfo }));
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('OK');
    expect(created.body.paymentMethods.card.authenticationData.transStatus).toBe('Y');
    expect(created.body.browserInfo).toMatchObject({ colorDepth: 30, language: 'zh-Hant-TW' }); // echoed as sent
  });

  it.each([
    ['an RSA key', () => ({ kty: 'RSA', n: 'x', e: 'AQAB' })],
    ['an EC key without coordinates', () => ({ kty: 'EC', crv: 'P-256' })],
    ['another curve', () => ({ ...p256(), crv: 'P-384' })],
    ['a numeric coordinate', () => ({ ...p256(), x: 12 })],
    ['the private key (d)', () => p256Private()],
    // Security: ECDH with a point off the curve is undefined (and the way into invalid-curve attacks), RFC 7518 §6.2.1.
    ['the base point with y + 1 (off the curve)', () => offCurveP256()],
    ['the all-zero point', () => ({ ...p256(), x: 'A'.repeat(43), y: 'A'.repeat(43) })],
    ['a point whose x is the field prime p', () => ({ ...p256(), x: P256_PRIME_BASE64URL })],
  ])('an app payment whose sdkEphemPubKey is %s: 400 naming it, nothing stored', async (_name, key) => {
    const body = directPayment(
      testPan('40000000', '1000'),
      { channel: 'APP', browserInfo: undefined, urls: URLS },
      { sdkInfo: { ...sdkInfo(), sdkMaxTimeout: '05', sdkEphemPubKey: key() } },
    );
    const answer = await pay(body);
    expect(answer.status).toBe(400);
    expect(fieldsOf(answer)?.[0]).toMatch(/^paymentMethods\.card\.threeDsPolicy\.sdkInfo\.sdkEphemPubKey/);
    expect(await storedPayments(String(body.transId))).toEqual([]);
  });

  it("an app payment with the SDK's public P-256 JWK is authenticated", async () => {
    const body = directPayment(
      testPan('40000000', '1000'),
      { channel: 'APP', browserInfo: undefined, urls: URLS },
      { sdkInfo: { ...sdkInfo(), sdkMaxTimeout: '05', sdkEphemPubKey: { ...p256(), kid: 'sdk-1' } } },
    );
    const answer = await pay(body);
    expect(answer.status).toBe(201);
    expect(answer.body.status).toBe('OK');
  });

  it('subType matches brands in any case: a session limited to ["visa"] takes a Visa card', async () => {
    expect(await paidSession({ paymentMethods: { card: { subType: ['visa'] } } })).not.toBe('');
  });

  it('a subType naming no brand Kassa takes is refused at once, naming it: no card could pay', async () => {
    for (const subType of [['AMEX'], ['DINERS', 'CARTESBANCAIRES']]) {
      const refused = await session({ paymentMethods: { card: { subType } } });
      expect(refused.status, subType.join()).toBe(400);
      expect(fieldsOf(refused)).toEqual(['paymentMethods.card.subType']);
      const hosted = await pay({
        transId: `h-${subType.join('-')}`,
        amount: { value: 100, currency: 'DKK' },
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED', card: { subType } },
        urls: URLS,
      });
      expect(hosted.status).toBe(400);
      expect(await storedPayments(`h-${subType.join('-')}`)).toEqual([]);
    }
    // Paygate's own example list names brands Kassa does not take beside ones it does: fine.
    const mixed = await session({
      paymentMethods: { card: { subType: ['VISA', 'MASTERCARD', 'CARTESBANCAIRES', 'AMEX'] } },
    });
    expect(mixed.status).toBe(201);
  });

  it.each([
    [
      'a shipping_fee line with amount.grossShippingAmount',
      { value: 1500, currency: 'DKK', grossShippingAmount: 500 },
      [
        { name: 'thing', grossPrice: 1000, quantity: 1 },
        { name: 'Shipping', type: 'shipping_fee', grossPrice: 500, quantity: 1 },
      ],
    ],
    [
      'a discount line with a negative price',
      { value: 900, currency: 'DKK' },
      [
        { name: 'thing', grossPrice: 1000, quantity: 1 },
        { name: 'Coupon', type: 'discount', grossPrice: -100, quantity: 1 },
      ],
    ],
    [
      'a discount line with amount.grossDiscount',
      { value: 900, currency: 'DKK', grossDiscount: 100 },
      [
        { name: 'thing', grossPrice: 1000, quantity: 1 },
        { name: 'Coupon', type: 'DISCOUNT', grossPrice: -100 },
      ],
    ],
  ])('order lines with %s add up and are taken', async (_name, amount, items) => {
    expect((await pay(directPayment(testPan('40000000', '1000'), { amount, order: { items } }))).status).toBe(201);
    expect((await session({ amount, order: { items } })).status).toBe(201);
  });

  it('a negative price on a line that is not a discount, or lines that do not add up, are still refused', async () => {
    const negative = await pay(
      directPayment(testPan('40000000', '1000'), {
        amount: { value: 900, currency: 'DKK' },
        order: {
          items: [
            { name: 'a', grossPrice: 1000 },
            { name: 'b', type: 'physical', grossPrice: -100 },
          ],
        },
      }),
    );
    expect(negative.status).toBe(400);
    expect(fieldsOf(negative)).toEqual(['order.items.1.grossPrice']);
    const off = await pay(
      directPayment(testPan('40000000', '1000'), {
        amount: { value: 1000, currency: 'DKK', grossShippingAmount: 500 },
        order: { items: [{ name: 'a', grossPrice: 1000 }] },
      }),
    );
    expect(off.status).toBe(400);
    expect(fieldsOf(off)).toEqual(['order.items']);
  });
});

/** A public P-256 JWK, as a 3DS SDK sends its ephemeral key. */
function p256(): Record<string, unknown> {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
}

/**
 * The P-256 base point G with y + 1 (FIPS 186-4 D.1.2.3): the shape of a public key, its point off the curve. The
 * field prime p as x: a coordinate of the right length, outside the field.
 */
const hex64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');
const offCurveP256 = () => ({
  kty: 'EC',
  crv: 'P-256',
  x: hex64('6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296'),
  y: hex64('4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f6'),
});
const P256_PRIME_BASE64URL = hex64('ffffffff00000001000000000000000000000000ffffffffffffffffffffffff');

/** A private P-256 JWK (`d` included): what an SDK must never send. */
function p256Private(): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
}
