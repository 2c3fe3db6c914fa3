/**
 * What the Paygate v2 request fields mean on Kassa's pages (paygate-v2-wire.md §2), over HTTPS: the page language,
 * the brands a hosted card step takes, the merchant's template texts and logo, prefilled card fields, expiry times
 * and order lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySettlementLedger } from '../../src/integrations/acquirer-simulator/settlement-ledger.js';
import { SimulatorAcquirer } from '../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../src/integrations/bins/csv-bin-table.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient, formWithAction } from '../helpers/form-client.js';
import { payInHostedSession } from '../helpers/hosted-client.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const RETURN = 'https://shop.example/return';
const CANCEL = 'https://shop.example/cancel';

describe.each(DIALECTS)('Paygate request fields on the hosted and 3-D Secure pages (%s)', (dialect) => {
  let t: TestKassa;
  let client: FormClient;
  let m: { merchantId: string; apiKey: string };
  // The acquirer simulator's settlement records, to see what reached the acquirer (statement descriptor, exemption).
  const ledger = new MemorySettlementLedger();

  beforeAll(async () => {
    t = await startTestKassa(dialect, {
      acquirer: new SimulatorAcquirer(CsvBinTable.fromFile('data/bins.csv'), ledger, () => new Date()),
    });
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

  const createSession = async (extra: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/api/v2/payments/sessions', {
      auth: m,
      json: {
        transId: `s-${Math.random().toString(36).slice(2)}`,
        amount: { value: 4_990, currency: 'EUR' },
        urls: { return: RETURN, cancel: CANCEL },
        ...extra,
      },
    });
    expect(res.status, res.text).toBe(201);
    return res.body as { sessionId: string; _links: { redirect: { href: string } } };
  };

  /** The card step of a session: checkout page → start. */
  const sessionCardStep = async (checkoutUrl: string) => {
    const checkout = await client.get(checkoutUrl);
    const start = formWithAction(checkout.html, t.url, '/start');
    const started = await client.post(start.action, start.fields);
    expect(started.status).toBe(303);
    return client.get(started.headers.get('location') ?? '');
  };

  /** Runs `act` while recording the threeDSRequestorChallengeInd of every AReq the simulated DS receives. */
  async function withChallengeIndicators<T>(act: () => Promise<T>): Promise<{ sent: string[]; result: T }> {
    const sent: string[] = [];
    const ds = t.kassa.services.threeDSSimulator;
    if (!ds) throw new Error('no simulator');
    const original = ds.authenticate.bind(ds);
    ds.authenticate = async (areq) => {
      sent.push(areq.threeDSRequestorChallengeInd);
      return original(areq);
    };
    try {
      return { sent, result: await act() };
    } finally {
      ds.authenticate = original;
    }
  }

  it('prefillInfo prefills the card step of a HOSTED payment (name, expiry), never the number or security code', async () => {
    const pan = testPan('40000000', '1000');
    const p = await createHosted(
      { language: 'en' },
      { prefillInfo: { cardholderName: 'Jean <Dupont>', expiryDate: '203011', number: pan, securityCode: '987' } },
    );
    const page = await client.get(p._links.redirect.href);
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/id="cardholderName"[^>]*value="Jean &lt;Dupont>"/);
    expect(page.html).toMatch(/id="expiry"[^>]*value="11\/30"/);
    expect(page.html).not.toContain(pan);
    // As a word of its own: the page's random ids and signed links may hold the digits 987 by chance.
    expect(page.html).not.toMatch(/\b987\b/);
    const details = await t.call('GET', `/api/v2/payments/getByPayId/${p.payId}`, { auth: m });
    expect(details.text).not.toContain(pan);
    expect(details.text).not.toContain('Jean');
  });

  it('a prefilled cardholder name holding a card number is neither kept nor prefilled, as the number itself', async () => {
    const pan = testPan('40000000', '1000');
    const grouped = pan.replace(/(\d{4})(?=\d)/g, '$1 ');
    const p = await createHosted(
      { language: 'en' },
      { prefillInfo: { cardholderName: grouped, expiryDate: '203011' } },
    );
    const page = await client.get(p._links.redirect.href);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain(grouped);
    expect(page.html).toMatch(/id="expiry"[^>]*value="11\/30"/);
    const stored = await t.database.db.kysely
      .selectFrom('payment')
      .selectAll()
      .where('pay_id', '=', p.payId)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(grouped);
  });

  it('prefillInfo of a session prefills the card step of its payment', async () => {
    const s = await createSession({
      paymentMethods: { card: { prefillInfo: { cardholderName: 'Maija Meikäläinen', expiryDate: '202907' } } },
    });
    const card = await sessionCardStep(s._links.redirect.href);
    expect(card.html).toMatch(/id="cardholderName"[^>]*value="Maija Meikäläinen"/);
    expect(card.html).toMatch(/id="expiry"[^>]*value="07\/29"/);
  });

  it('template.customFields show the merchant texts escaped and an https logo; the CSP allows that origin for images only', async () => {
    const s = await createSession({
      template: {
        customFields: {
          customField1: '49,90 EUR TTC',
          customField3: 'https://cdn.shop.example:8443/img/logo.png',
          customField4: '<script>alert(1)</script> Commande N°42',
        },
      },
    });
    const page = await client.get(s._links.redirect.href);
    expect(page.status).toBe(200);
    expect(page.html).toContain('&lt;script>alert(1)&lt;/script> Commande N°42');
    expect(page.html).not.toContain('<script>alert(1)');
    expect(page.html).toContain('49,90 EUR TTC');
    expect(page.html).toMatch(/<img class="logo" src="https:\/\/cdn\.shop\.example:8443\/img\/logo\.png" alt="[^"]+"/);
    const csp = (page.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim());
    expect(csp).toContain('img-src https://cdn.shop.example:8443');
    expect(csp.filter((d) => d.includes('cdn.shop.example'))).toEqual(['img-src https://cdn.shop.example:8443']);
    expect(csp).toContain("default-src 'none'");
  });

  it('paymentMethods.card.template.customFields show on the HOSTED card and review steps; they win over template.customFields', async () => {
    const p = await createHosted(
      { template: { customFields: { customField4: 'Top-level order text' } } },
      {
        template: { customFields: { customField4: 'Card order text', customField3: 'https://img.shop.example/l.svg' } },
      },
    );
    const page = await client.get(p._links.redirect.href);
    expect(page.html).toContain('Card order text');
    expect(page.html).not.toContain('Top-level order text');
    expect(page.headers.get('content-security-policy')).toContain('img-src https://img.shop.example');
    const { action, fields } = formWithAction(page.html, t.url, '/card');
    const afterCard = await client.post(action, {
      ...fields,
      number: testPan('40000000', '1000'),
      expiry: '12/30',
      securityCode: '123',
    });
    const review = await client.get(afterCard.headers.get('location') ?? '');
    expect(review.html).toContain('Card order text');
    expect(review.html).toContain('src="https://img.shop.example/l.svg"');
  });

  it.each([
    ['http://shop.example/logo.png'],
    ['data:image/svg+xml,<svg xmlns="http://www.w3.org/2000/svg"/>'],
    ['https://user:pw@shop.example/logo.png'],
    ['javascript:alert(1)'],
  ])('a logo that is not a plain https URL (%s) is ignored: no image, no img-src', async (logo) => {
    const p = await createHosted({}, { template: { customFields: { customField3: logo, customField4: 'Order 7' } } });
    const page = await client.get(p._links.redirect.href);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Order 7');
    expect(page.html).not.toContain('<img');
    expect(page.headers.get('content-security-policy')).not.toContain('img-src');
  });

  it.each(['THIS_TRANSACTION', 'OUT_OF_SCOPE'] as const)(
    'a session with threeDsPolicy.skip %s authorizes without an AReq, even for a challenge card',
    async (skip) => {
      const s = await createSession({ paymentMethods: { card: { threeDsPolicy: { skip } } } });
      const { sent, result } = await withChallengeIndicators(() =>
        payInHostedSession(client, t.url, s._links.redirect.href, testPan('40000000', '1005')),
      );
      expect(sent).toEqual([]);
      expect(result.done.external).toContain(RETURN);
      const payId = new URL(result.done.external ?? '').searchParams.get('PayID') ?? '';
      const details = await t.call('GET', `/api/v2/payments/getByPayId/${payId}`, { auth: m });
      expect(details.body).toMatchObject({ status: 'OK', responseCode: '00000000' });
      expect(details.body.threeDS).toBeUndefined();
    },
  );

  it.each([
    // `acquired`: what reached the acquirer — nothing while a mandated challenge waits for the cardholder, else the
    // sale with the exemption reason when one was asked for and the result was frictionless (docs/decisions.md).
    [{ challengePreference: 'MANDATE_CHALLENGE' }, '04', undefined],
    [{ challengePreference: 'NO_CHALLENGE' }, '02', { type: 'SALE' }],
    [{ skip: 'DATA_ONLY' }, '06', { type: 'SALE' }],
    [
      { exemption: { reason: 'TRANSACTION_RISK_ANALYSIS' } },
      '05',
      { type: 'SALE', exemption: 'TRANSACTION_RISK_ANALYSIS' },
    ],
  ])(
    'threeDsPolicy %j of a HOSTED payment reaches the AReq as threeDSRequestorChallengeInd %s; the acquirer sees %j',
    async (policy, ind, acquired) => {
      const p = await createHosted({}, { threeDsPolicy: policy });
      const { sent } = await withChallengeIndicators(() =>
        payInHostedSession(client, t.url, p._links.redirect.href, testPan('40000000', '1000')),
      );
      expect(sent).toEqual([ind]);
      const records = (await ledger.records()).filter((r) => r.payId === p.payId);
      expect(records.map((r) => ({ type: r.type, ...(r.exemption && { exemption: r.exemption }) }))).toEqual(
        acquired ? [acquired] : [],
      );
    },
  );

  it('threeDsPolicy.challengePreference of a session reaches the AReq', async () => {
    const s = await createSession({
      paymentMethods: { card: { threeDsPolicy: { challengePreference: 'REQUEST_CHALLENGE' } } },
    });
    const { sent } = await withChallengeIndicators(() =>
      payInHostedSession(client, t.url, s._links.redirect.href, testPan('40000000', '1000')),
    );
    expect(sent).toEqual(['03']);
  });

  it('order.items: the checkout page shows name, quantity and gross line price as given, {name, taxRate} alone by name, and always the total', async () => {
    const s = await createSession({
      amount: { value: 5_490, currency: 'EUR' },
      order: {
        items: [
          { name: 'Con badge', taxRate: 1900 },
          { name: 'T-shirt', quantity: 2, grossPrice: 1_995 },
          { description: 'Sticker <pack>', grossPrice: 500 },
        ],
      },
    });
    const page = await client.get(s._links.redirect.href);
    const rows = [...page.html.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((r) => r[1]?.replace(/<[^>]+>/g, '|'));
    expect(rows.some((r) => /\|Con badge\|\|\|/.test(r ?? ''))).toBe(true);
    expect(rows.some((r) => /T-shirt × 2\|\|[^|]*39[.,]90/.test(r ?? ''))).toBe(true);
    expect(rows.some((r) => /Sticker &lt;pack>\|\|[^|]*5[.,]00/.test(r ?? ''))).toBe(true);
    expect(page.html).toMatch(/data-testid="total">[^<]*54[.,]90/);
  });

  it('subType of a session limits the card step of its payment too', async () => {
    const s = await createSession({ language: 'de', paymentMethods: { card: { subType: ['VISA'] } } });
    const card = await sessionCardStep(s._links.redirect.href);
    const { action, fields } = formWithAction(card.html, t.url, '/card');
    const mastercard = await client.post(action, {
      ...fields,
      number: testPan('51000000', '1000'),
      expiry: '12/30',
      securityCode: '123',
    });
    expect(mastercard.status).toBe(422);
    expect(mastercard.html).toContain('Der Shop akzeptiert diesen Kartentyp nicht.');
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
