import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const URLS = { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' };

/** Text rules at the edge (issue 9, defect 3) and currencies without minor units (defect 7), alike on both databases. */
describe.each(DIALECTS)('text and currency rules (%s)', (dialect) => {
  let t: TestKassa;
  let m: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    m = await t.createMerchant();
  });
  afterAll(async () => t?.close());

  const pay = (body: unknown) => t.call('POST', '/api/v1/payments', { auth: m, json: body });
  const withCard = (body: Record<string, unknown>, card: Record<string, unknown>) => {
    const methods = body.paymentMethods as { card: Record<string, unknown> };
    return { ...body, paymentMethods: { ...methods, card: { ...methods.card, ...card } } };
  };
  const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => answer.body.errors?.map((e) => e.field);
  /** The payIds stored under `transId`: none after a refused request. */
  const stored = (transId: string) =>
    t.database.db.kysely.selectFrom('payment').select('pay_id').where('trans_id', '=', transId).execute();

  it.each([
    ['a C1 control (U+0085)', 'ref\u0085'],
    ['a right-to-left override (U+202E)', 'ref\u202Egnp.exe'],
    ['a first-strong isolate (U+2068)', 'ref\u2068x'],
    ['a lone high surrogate', 'ref\uD800x'],
    ['a lone low surrogate', 'ref\uDC00'],
  ])('refNr with %s: 400 naming refNr, nothing stored', async (_name, refNr) => {
    const body = directPayment(testPan('40000000', '1000'), { refNr });
    const answer = await pay(body);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(fieldsOf(answer)).toEqual(['refNr']);
    expect(await stored(String(body.transId))).toEqual([]);
  });

  it.each([
    ['whole', '4000000000010001'],
    ['in groups', 'Ann Lee 4000 0000 0001 0001'],
    ['with dots', '4000.0000.0001.0001'],
  ])('cardHolderName holding a card number (%s): 400 naming the field, nothing stored', async (_name, name) => {
    const transId = `pan-name-${Math.random().toString(36).slice(2)}`;
    const answer = await pay(
      withCard(directPayment(testPan('40000000', '1000'), { transId }), { cardHolderName: name }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual([
      { field: 'paymentMethods.card.cardHolderName', message: 'must not hold a card number' },
    ]);
    expect(await stored(transId)).toEqual([]);
  });

  it('a name with digits that are no card number is taken (Luhn fails, or too few digits)', async () => {
    for (const name of ['Ann Lee 3rd', 'Flat 12 4000 0000 0001 0002', 'ACME 2026-11-29']) {
      const answer = await pay(withCard(directPayment(testPan('40000000', '1000')), { cardHolderName: name }));
      expect(answer.status, name).toBe(201);
    }
  });

  it('cardHolderName with a bidi override: 400 naming the field', async () => {
    const answer = await pay(withCard(directPayment(testPan('40000000', '1000')), { cardHolderName: 'Ann \u202DX' }));
    expect(answer.status).toBe(400);
    expect(fieldsOf(answer)).toEqual(['paymentMethods.card.cardHolderName']);
  });

  it.each([
    ['a right-to-left override', '\u202E'],
    ['a lone surrogate', '\uD800'],
    ['a C0 control', 'a\u0001'],
    ['an ANSI escape', '\u001B[31m'],
    ['65 characters', 'k'.repeat(65)],
  ])('a metadata key with %s: 400 naming metadata, nothing stored; a value likewise', async (_name, key) => {
    const body = directPayment(testPan('40000000', '1000'), { metadata: { [key]: 'x' } });
    const answer = await pay(body);
    expect(answer.status).toBe(400);
    expect(fieldsOf(answer)).toEqual(['metadata']);
    expect(answer.body.errors[0].message).toMatch(/^a key must /);
    expect(await stored(String(body.transId))).toEqual([]);
  });

  it('metadata keys of printable text up to 64 characters, empty values too, are taken and echoed', async () => {
    const metadata = { ['k'.repeat(64)]: '', 'order-😀': 'x', 'Ordre nº': 'y' };
    const answer = await pay(directPayment(testPan('40000000', '1000'), { metadata }));
    expect(answer.status).toBe(201);
    expect(answer.body.metadata).toEqual(metadata);
  });

  it('text outside the BMP (a surrogate pair) is fine', async () => {
    const answer = await pay(directPayment(testPan('40000000', '1000'), { refNr: 'order-😀-1' }));
    expect(answer.status).toBe(201);
    // Answers with payment data are never cached (weakness: Cache-Control: no-store), read or created, v1 or v2.
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const read = await t.call('GET', `/api/v2/payments/getByPayId/${answer.body.payId}`, { auth: m });
    expect(read.headers.get('cache-control')).toBe('no-store');
    expect(answer.body.refNr).toBe('order-😀-1');
  });

  it('capture, reversal and session refNr follow the same rule', async () => {
    const created = await pay(directPayment(testPan('40000000', '1000')));
    expect(created.status).toBe(201);
    for (const op of ['captures', 'reversals']) {
      const answer = await t.call('POST', `/api/v1/payments/${created.body.payId}/${op}`, {
        auth: m,
        json: { transId: `op-${op}`, refNr: 'r\u202E1', amount: { value: 12_500, currency: 'DKK' } },
      });
      expect(answer.status, op).toBe(400);
      expect(fieldsOf(answer), op).toContain('refNr');
    }
    const session = await t.call('POST', '/api/v1/payments/sessions', {
      auth: m,
      json: { transId: 's-bidi', refNr: 'r\uD83D', amount: { value: 100, currency: 'DKK' }, urls: URLS },
    });
    expect(session.status).toBe(400);
    expect(fieldsOf(session)).toContain('refNr');
  });

  // BCP 47 tags longer than a language and a region (wire §2: "never refused"), up to the 35 characters the API takes.
  it.each(['zh-Hant-TW', 'sr-Latn-RS', 'de-CH-1996', 'en-GB-oxendict', 'de-DE-u-co-phonebk-x-private-ab12'])(
    'language %s is taken and kept whole by DIRECT payments, HOSTED payments and sessions',
    async (language) => {
      const direct = await pay(directPayment(testPan('40000000', '1000'), { language }));
      expect(direct.status).toBe(201);
      const read = await t.call('GET', `/api/v2/payments/getByPayId/${direct.body.payId}`, { auth: m });
      expect(read.body.language).toBe(language);
      const hosted = await pay({
        transId: `h-${language}`,
        amount: { value: 100, currency: 'DKK' },
        language,
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        urls: URLS,
      });
      expect(hosted.status).toBe(202); // PENDING until the card is typed
      const session = await t.call('POST', '/api/v1/payments/sessions', {
        auth: m,
        json: { transId: `s-${language}`, amount: { value: 100, currency: 'DKK' }, language, urls: URLS },
      });
      expect(session.status).toBe(201);
      const stored = await t.database.db.kysely
        .selectFrom('checkout_session')
        .select('language')
        .where('trans_id', '=', `s-${language}`)
        .executeTakeFirstOrThrow();
      expect(stored.language).toBe(language);
    },
  );

  it.each(['XXX', 'XAU', 'XTS', 'XDR'])(
    '%s (no minor units) is refused with 400 for DIRECT, HOSTED and sessions',
    async (currency) => {
      const direct = await pay(directPayment(testPan('40000000', '1000'), { amount: { value: 100, currency } }));
      expect(direct.status).toBe(400);
      expect(fieldsOf(direct)).toContain('amount.currency');
      const hosted = await pay({
        transId: `h-${currency}`,
        amount: { value: 100, currency },
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        urls: URLS,
      });
      expect(hosted.status).toBe(400);
      expect(fieldsOf(hosted)).toContain('amount.currency');
      const session = await t.call('POST', '/api/v1/payments/sessions', {
        auth: m,
        json: { transId: `s-${currency}`, amount: { value: 100, currency }, urls: URLS },
      });
      expect(session.status).toBe(400);
      expect(fieldsOf(session)).toContain('amount.currency');
    },
  );
});
