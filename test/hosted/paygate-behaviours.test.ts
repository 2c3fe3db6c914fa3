/**
 * What the Paygate v2 request fields mean on Kassa's pages (paygate-v2-wire.md §2), over HTTPS: the page language,
 * the brands a hosted card step takes, the merchant's template texts and logo, prefilled card fields, expiry times
 * and order lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient, formWithAction } from '../helpers/form-client.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const RETURN = 'https://shop.example/return';
const CANCEL = 'https://shop.example/cancel';

describe.each(DIALECTS)('Paygate request fields on the hosted and 3-D Secure pages (%s)', (dialect) => {
  let t: TestKassa;
  let client: FormClient;
  let m: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    client = new FormClient(t.ca, t.url);
    m = await t.createMerchant({ country: 'DE', currency: 'EUR' });
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const createHosted = async (extra: Record<string, unknown> = {}, card: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/api/v2/payments', {
      auth: m,
      json: {
        transId: `h-${Math.random().toString(36).slice(2)}`,
        amount: { value: 4_990, currency: 'EUR' },
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED', ...(Object.keys(card).length > 0 && { card }) },
        urls: { return: RETURN, cancel: CANCEL },
        ...extra,
      },
    });
    expect(res.status, res.text).toBe(202);
    return res.body as { payId: string; _links: { redirect: { href: string } } };
  };

  it.each([
    ['de-DE', 'de', 'Mit Karte bezahlen'],
    ['FR', 'fr', 'Payer par carte'],
    ['fr-ch', 'fr', 'Payer par carte'],
    ['es', 'en', 'Pay by card'],
  ])('language %s shows the card step in %s', async (language, lang, heading) => {
    const p = await createHosted({ language });
    const page = await client.get(p._links.redirect.href);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<html lang="${lang}"`);
    expect(page.html).toContain(heading);
  });

  it('Kassa 3-D Secure pages speak the payment language (de-DE → German method page)', async () => {
    const res = await t.call('POST', '/api/v2/payments', {
      auth: m,
      json: directPayment(
        testPan('40000000', '1000'),
        { amount: { value: 1_000, currency: 'EUR' }, language: 'de-DE', urls: { return: RETURN } },
        { browserAuthentication: 'REDIRECT' },
      ),
    });
    expect(res.status, res.text).toBe(201);
    const page = await client.get(res.body._links.redirect.href);
    expect(page.html).toContain('<html lang="de"');
    expect(page.html).toContain('Ihre Karte wird geprüft');
  });

  it('an invalid 3-D Secure link answers in the browser language', async () => {
    const page = await client.get(`${t.url}/3ds/challenge/${'0'.repeat(32)}?token=x`, {
      'accept-language': 'fr-FR,fr;q=0.9',
    });
    expect(page.status).toBe(404);
    expect(page.html).toContain('Lien non valide');
  });

  it('paymentMethods.card.subType limits the brands the card step takes, with a clear message for another brand', async () => {
    const p = await createHosted({ language: 'en' }, { subType: ['MASTERCARD'] });
    const page = await client.get(p._links.redirect.href);
    const { action, fields } = formWithAction(page.html, t.url, '/card');
    const visa = await client.post(action, {
      ...fields,
      number: testPan('40000000', '1000'),
      expiry: '12/30',
      securityCode: '123',
    });
    expect(visa.status).toBe(422);
    expect(visa.html).toContain('The shop does not accept this card type. Please use another card.');
    const mastercard = await client.post(action, {
      ...fields,
      number: testPan('51000000', '1000'),
      expiry: '12/30',
      securityCode: '123',
    });
    expect(mastercard.status).toBe(303);
    expect(mastercard.headers.get('location')).toContain('/review');
  });

  it('expirationTime sets when a session expires', async () => {
    const expirationTime = new Date(Date.now() + 3 * 24 * 3600 * 1000).toISOString();
    const res = await t.call('POST', '/api/v2/payments/sessions', {
      auth: m,
      json: {
        transId: `s-${Math.random().toString(36).slice(2)}`,
        amount: { value: 1_000, currency: 'EUR' },
        urls: { return: RETURN, cancel: CANCEL },
        expirationTime,
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.expirationTime).toBe(expirationTime);
    const past = await t.call('POST', '/api/v2/payments/sessions', {
      auth: m,
      json: {
        transId: `s-${Math.random().toString(36).slice(2)}`,
        amount: { value: 1_000, currency: 'EUR' },
        urls: { return: RETURN, cancel: CANCEL },
        expirationTime: new Date(Date.now() - 1000).toISOString(),
      },
    });
    expect(past.status).toBe(400);
    expect(JSON.stringify(past.body)).toContain('expirationTime');
  });
});
