import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient, formWithAction } from '../helpers/form-client.js';
import { followToMerchant } from '../helpers/hosted-client.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const RETURN = 'https://shop.example/return';
const CANCEL = 'https://shop.example/cancel';

describe.each(DIALECTS)('hosted forms without JavaScript (%s)', (dialect) => {
  let t: TestKassa;
  let client: FormClient;
  let dk: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    client = new FormClient(t.ca, t.url);
    dk = await t.createMerchant({ country: 'DK', currency: 'DKK', webhookUrl: 'http://127.0.0.1:9/kassa-events' });
    await t.kassa.services.surcharge.enable(
      dk.merchantId,
      [
        { brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 180 },
        { brand: '*', reason: 'NON_EEA_CARD', percentageBps: 250, fixed: 100 },
      ],
      'test',
    );
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const createHosted = async (value = 10_000, extra: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/api/v1/payments', {
      auth: dk,
      json: {
        transId: `h-${Math.random().toString(36).slice(2)}`,
        amount: { value, currency: 'DKK' },
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        urls: { return: RETURN, cancel: CANCEL },
        ...extra,
      },
    });
    expect(res.status).toBe(202);
    return res.body;
  };

  const typeCard = async (redirect: string, pan: string, expiry = '12/30', securityCode = '123') => {
    const page = await client.get(redirect);
    const { action, fields } = formWithAction(page.html, t.url, '/card');
    return client.post(action, { ...fields, number: pan, expiry, securityCode, cardholderName: 'Alma Jensen' });
  };

  it('HOSTED answers 202 PENDING with a signed link to the card step', async () => {
    const p = await createHosted();
    expect(p).toMatchObject({
      status: 'PENDING',
      responseCode: '60040001',
      paymentMethods: { integrationType: 'HOSTED' },
    });
    expect(p._links.redirect.href).toMatch(
      new RegExp(`^${t.url}/hosted/payments/${p.payId}\\?t=\\d+\\.[A-Za-z0-9_-]{43}$`),
    );
  });

  it('card data in a HOSTED request is refused: the merchant never handles it', async () => {
    const res = await t.call('POST', '/api/v1/payments', {
      auth: dk,
      json: {
        transId: 'h-card',
        amount: { value: 100, currency: 'DKK' },
        paymentMethods: {
          type: 'CARD',
          integrationType: 'HOSTED',
          card: { number: testPan('40000000', '1000'), expiryDate: '203012', securityCode: '123' },
        },
        urls: { return: RETURN },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('paymentMethods.card.number');
  });

  it('the card step is served with a strict CSP, labelled fields and no third-party assets', async () => {
    const p = await createHosted();
    const page = await client.get(p._links.redirect.href);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]{24}'/);
    expect(page.html).toContain('<html lang="en">');
    for (const id of ['number', 'expiry', 'securityCode', 'cardholderName']) {
      expect(page.html).toContain(`<label for="${id}">`);
    }
    expect(page.html).not.toMatch(/(src|href)="https?:\/\/(?!127\.0\.0\.1)/);
  });

  // Security: links cannot be forged or reused for another payment.
  it('a tampered or foreign link token is refused with 403', async () => {
    const a = await createHosted();
    const b = await createHosted();
    const tokenOfA = new URL(a._links.redirect.href).searchParams.get('t') ?? '';
    expect((await client.get(`/hosted/payments/${b.payId}?t=${encodeURIComponent(tokenOfA)}`)).status).toBe(403);
    expect((await client.get(`/hosted/payments/${a.payId}?t=${tokenOfA.slice(0, -2)}xx`)).status).toBe(403);
    expect((await client.get(`/hosted/payments/${a.payId}`)).status).toBe(403);
  });

  it('a form posted without the CSRF token is refused with 403', async () => {
    const p = await createHosted();
    const page = await client.get(p._links.redirect.href);
    const { action, fields } = formWithAction(page.html, t.url, '/card');
    const res = await client.post(action, {
      t: fields.t ?? '',
      number: testPan('40000000', '1000'),
      expiry: '12/30',
      securityCode: '123',
    });
    expect(res.status).toBe(403);
  });

  it('Luhn and expiry errors are shown next to their fields, and the card number is not echoed', async () => {
    const p = await createHosted();
    const res = await typeCard(p._links.redirect.href, '4000000000010002', '01/20');
    expect(res.status).toBe(422);
    expect(res.html).toContain('id="number-error"');
    expect(res.html).toContain('Enter a valid card number.');
    expect(res.html).toContain('id="expiry-error"');
    expect(res.html).toContain('This card has expired.');
    expect(res.html).toContain('aria-describedby="number-error"');
    expect(res.html).not.toContain('4000000000010002');
  });

  /** A new HOSTED payment's card step posted with a frictionless Visa test card and `cardholderName`. */
  const cardStepWithName = async (cardholderName: string) => {
    const p = await createHosted();
    const page = await client.get(p._links.redirect.href);
    const { action, fields } = formWithAction(page.html, t.url, '/card');
    const card = { number: testPan('40000000', '1000'), expiry: '12/30', securityCode: '123', cardholderName };
    return { p, res: await client.post(action, { ...fields, ...card }) };
  };

  // Security: a name with controls or bidi overrides would read differently in the merchant's back office and logs
  // than what was typed; the merchant API refuses the same text (contracts/primitives.ts TEXT_PATTERN).
  it.each([
    ['a line feed', 'a\nb'],
    ['an ANSI escape', '\x1b[31mred'],
    ['a C1 control', 'Ann\u0085Lee'],
    ['a right-to-left override', '\u202eevil'],
    ['a left-to-right isolate', 'a\u2066b'],
    ['a card number typed into it', '4000 0000 0001 0001'],
  ])('a cardholder name with %s is refused with a field error and not stored', async (_name, cardholderName) => {
    const { p, res } = await cardStepWithName(cardholderName);
    expect(res.status).toBe(422);
    expect(res.html).toContain('id="cardholderName-error"');
    expect(res.html).toContain('aria-describedby="cardholderName-error"');
    expect(res.html).toContain('Use letters, spaces and punctuation only.');
    const details = (await t.call('GET', `/api/v1/payments/getByPayId/${p.payId}`, { auth: dk })).body;
    expect(details.status).toBe('PENDING');
    expect(details.paymentMethods?.card?.cardHolderName ?? '').toBe('');
  });

  it('a cardholder name with letters from any script and a right-to-left mark is taken', async () => {
    const cardholderName = 'Maija Meikäläinen \u05d3\u05d5\u05d3\u200f 😀';
    const { p, res } = await cardStepWithName(cardholderName);
    expect(res.status).toBe(303);
    const details = (await t.call('GET', `/api/v1/payments/getByPayId/${p.payId}`, { auth: dk })).body;
    expect(details.paymentMethods.card.cardHolderName).toBe(cardholderName);
  });

  it.each([
    ['a commercial Visa (DK)', testPan('40000010', '1000'), 180, 'COMMERCIAL_CARD'],
    ['a non-EEA consumer Visa (US)', testPan('40000020', '1000'), 350, 'NON_EEA_CARD'],
    ['a non-EEA consumer Mastercard (GB)', testPan('51000020', '1000'), 350, 'NON_EEA_CARD'],
  ])(
    '%s: the review step shows the card fee as its own line and the total; the payment is authorized at the total',
    async (_name, pan, fee, reason) => {
      const p = await createHosted(10_000);
      const afterCard = await typeCard(p._links.redirect.href, pan);
      expect(afterCard.status).toBe(303);
      const review = await client.get(afterCard.headers.get('location') ?? '');
      expect(review.html).toContain('Card fee');
      expect(review.html).toMatch(/data-testid="card-fee">DKK\s?[\d.,]+</);
      const total = 10_000 + fee;
      expect(review.html).toContain(`name="totalValue" value="${total}"`);
      expect(review.html).toMatch(/Pay DKK\s?[\d.,]+/);
      const { action, fields } = formWithAction(review.html, t.url, '/confirm');
      const done = await client.post(action, fields);
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toContain(`/3ds/method/${p.payId}?token=`);
      expect((await followToMerchant(client, t.url, done)).external).toBe(`${RETURN}?PayID=${p.payId}`);
      const details = (await t.call('GET', `/api/v1/payments/getByPayId/${p.payId}`, { auth: dk })).body;
      expect(details).toMatchObject({
        status: 'OK',
        amount: { value: 10_000, capturedValue: 10_000 },
        surcharge: { status: 'APPLIED', reason, value: fee, capturedValue: fee },
        totalAmount: { value: total, capturedValue: total },
      });
      expect(details.operations[0].totalAmount.value).toBe(total);
      // The Authentication Notification is for server-to-server integrations only (spec §2.1 rule 1).
      const events = (await t.call('GET', `/api/v1/notifications?payId=${p.payId}`, { auth: dk })).body.notifications;
      const types = events.map((e: { type: string }) => e.type);
      expect(types).toContain('payment.authorized');
      expect(types).not.toContain('authentication');
    },
  );

  it('a consumer card issued in the EEA: no surcharge text anywhere, paid at the merchant amount', async () => {
    const p = await createHosted(10_000);
    const afterCard = await typeCard(p._links.redirect.href, testPan('40000000', '1000'));
    const review = await client.get(afterCard.headers.get('location') ?? '');
    expect(review.html).not.toContain('Card fee');
    expect(review.html).not.toContain('card-fee');
    const { action, fields } = formWithAction(review.html, t.url, '/confirm');
    await followToMerchant(client, t.url, await client.post(action, fields));
    const details = (await t.call('GET', `/api/v1/payments/getByPayId/${p.payId}`, { auth: dk })).body;
    expect(details.surcharge).toMatchObject({ status: 'NOT_OFFERED', reason: 'CARD_NOT_ELIGIBLE', value: 0 });
    expect(details.totalAmount.value).toBe(10_000);
  });

  it('changing the card re-quotes: the fee follows the last card typed', async () => {
    const p = await createHosted(10_000);
    await typeCard(p._links.redirect.href, testPan('40000010', '1000'));
    const second = await typeCard(p._links.redirect.href, testPan('40000000', '1000'));
    const review = await client.get(second.headers.get('location') ?? '');
    expect(review.html).not.toContain('Card fee');
  });

  it('a stale review page (the card changed in another tab) is refused with QUOTE_CHANGED, nothing authorized', async () => {
    const p = await createHosted(10_000);
    const first = await typeCard(p._links.redirect.href, testPan('40000010', '1000'));
    const staleReview = await client.get(first.headers.get('location') ?? '');
    await typeCard(p._links.redirect.href, testPan('40000000', '1000'));
    const { action, fields } = formWithAction(staleReview.html, t.url, '/confirm');
    const res = await client.post(action, fields);
    expect(res.status).toBe(409);
    expect(res.html).toContain('The amounts have changed');
    const details = (await t.call('GET', `/api/v1/payments/getByPayId/${p.payId}`, { auth: dk })).body;
    expect(details.status).toBe('PENDING');
  });

  it('cancel sends the browser to urls.cancel with PayId and fails the payment', async () => {
    const p = await createHosted();
    const afterCard = await typeCard(p._links.redirect.href, testPan('40000000', '1000'));
    const review = await client.get(afterCard.headers.get('location') ?? '');
    const { action, fields } = formWithAction(review.html, t.url, '/cancel');
    const res = await client.post(action, fields);
    expect(res.headers.get('location')).toBe(`${CANCEL}?PayID=${p.payId}`);
    const details = (await t.call('GET', `/api/v1/payments/getByPayId/${p.payId}`, { auth: dk })).body;
    expect(details).toMatchObject({ status: 'FAILED', responseCode: '20040002' });
  });

  it('the card step speaks Danish for language "da" and for Accept-Language da', async () => {
    const p = await createHosted(10_000, { language: 'da' });
    const page = await client.get(p._links.redirect.href);
    expect(page.html).toContain('<html lang="da">');
    expect(page.html).toContain('Kortnummer');
    const q = await createHosted();
    const page2 = await client.get(q._links.redirect.href, { 'accept-language': 'da-DK,da;q=0.9,en;q=0.5' });
    expect(page2.html).toContain('Betal med kort');
  });
});
