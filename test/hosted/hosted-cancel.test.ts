/**
 * The cardholder's "Cancel and return to the shop" on every hosted step that waits for them (card step, session
 * checkout page; the review step had it already), over real HTTPS as a browser without JavaScript: the payment ends
 * FAILED 20040002 with payment.failed, the browser goes to urls.cancel with PayID (paygate-v2-wire.md §6), and the
 * shop may retry with the same transId at once (DESIGN.md §4) instead of waiting for the expiry sweep.
 */
import { renderToString } from 'preact-render-to-string';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES, MESSAGES } from '../../src/hosted/i18n.js';
import { CardStepPage } from '../../src/hosted/pages/card-step-page.js';
import { CheckoutPage } from '../../src/hosted/pages/checkout-page.js';
import { ReviewPage } from '../../src/hosted/pages/review-page.js';
import { merchantOrigins } from '../../src/hosted/render.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient, formWithAction } from '../helpers/form-client.js';
import { outboxEvents } from '../helpers/outbox.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const RETURN = 'https://shop.example/return';
const CANCEL = 'https://shop.example/cancel';

describe('the cancel control is on every waiting step, labelled in every language', () => {
  const common = { linkToken: 't', csrf: 'c', merchantName: 'Nordic Boxes', currency: 'DKK', value: 9900 };
  const pages = (lang: (typeof LANGUAGES)[number]) => {
    const t = MESSAGES[lang];
    return {
      card: renderToString(
        CardStepPage({
          ...common,
          t,
          lang,
          action: '/hosted/x/card',
          cancelAction: '/hosted/x/cancel',
          quoteUrl: '/hosted/x/quote',
          errors: [],
          values: {},
        }),
      ),
      review: renderToString(
        ReviewPage({
          ...common,
          t,
          lang,
          surchargeValue: 0,
          cardLabel: 'Visa •••• 1000',
          confirmAction: '/hosted/x/confirm',
          cancelAction: '/hosted/x/cancel',
          changeCardHref: '/hosted/x',
        }),
      ),
      checkout: renderToString(
        CheckoutPage({
          ...common,
          t,
          lang,
          session: { currency: 'DKK', value: 9900 } as never,
          action: '/hosted/s/start',
          cancelAction: '/hosted/s/cancel',
        }),
      ),
    };
  };

  it.each(LANGUAGES)('%s: card step, review step and checkout page post the same cancel form', (lang) => {
    const label = MESSAGES[lang].cancelAndReturn;
    expect(label).toBeTruthy();
    if (lang !== 'en') expect(label).not.toBe(MESSAGES.en.cancelAndReturn);
    for (const [name, html] of Object.entries(pages(lang))) {
      const cancel = /<form method="post" action="\/hosted\/[xs]\/cancel" id="cancel-form">([\s\S]*?)<\/form>/.exec(
        html,
      );
      expect(cancel, name).not.toBeNull();
      expect(cancel?.[1]).toContain('<input type="hidden" name="t" value="t"/>');
      expect(cancel?.[1]).toContain('<input type="hidden" name="csrf" value="c"/>');
      expect(cancel?.[1]).toContain(`<button type="submit" class="secondary">${label}</button>`);
    }
  });
});

// The origins a hosted page's CSP lets its forms end at (form-action): the merchant's return and cancel URLs, reduced
// to scheme, host and port, and only when nothing in them could end the directive and start another.
describe('merchantOrigins: CSP form-action origins of the merchant URLs', () => {
  it.each([
    [{ return: 'https://shop.example/ok?x=1', cancel: 'https://shop.example/ko' }, ['https://shop.example']],
    [
      { return: 'https://shop_1.example/ok', cancel: 'http://127.0.0.1:8080/ko' },
      ['https://shop_1.example', 'http://127.0.0.1:8080'],
    ],
    [{ return: 'https://[2001:db8::1]:8443/ok' }, ['https://[2001:db8::1]:8443']],
    [{ return: 'https://a;b.example/ok', cancel: "https://x.example;script-src 'unsafe-inline'/" }, []],
    [{ return: 'javascript:alert(1)', cancel: 'data:text/html,x' }, []],
    [{ return: 'not a url' }, []],
    [undefined, []],
  ])('%j → %j', (urls, origins) => {
    expect(merchantOrigins(urls)).toEqual(origins);
  });
});

describe.each(DIALECTS)('cancel and return to the shop (%s)', (dialect) => {
  let t: TestKassa;
  let client: FormClient;
  let dk: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    client = new FormClient(t.ca, t.url);
    dk = await t.createMerchant({ country: 'DK', currency: 'DKK', webhookUrl: 'http://127.0.0.1:9/kassa-events' });
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const newTransId = () => `q-${Math.random().toString(36).slice(2)}`;
  const createHosted = (transId: string, extra: Record<string, unknown> = {}) =>
    t.call('POST', '/api/v2/payments', {
      auth: dk,
      json: {
        transId,
        amount: { value: 10_000, currency: 'DKK' },
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        urls: { return: RETURN, cancel: CANCEL },
        ...extra,
      },
    });
  const createSession = (transId: string) =>
    t.call('POST', '/api/v2/payments/sessions', {
      auth: dk,
      json: { transId, amount: { value: 4_990, currency: 'DKK' }, urls: { return: RETURN, cancel: CANCEL } },
    });
  const details = async (payId: string) =>
    (await t.call('GET', `/api/v2/payments/getByPayId/${payId}`, { auth: dk })).body;
  const failedEvents = (payId: string) => outboxEvents(t.database.db.kysely, payId, 'payment.failed');
  /** `token` with its last two characters changed. */
  const tampered = (token: string) => `${token.slice(0, -2)}${token.endsWith('xx') ? 'yy' : 'xx'}`;

  it('the card step shows "Cancel and return to the shop", a form with the link and CSRF tokens', async () => {
    const created = await createHosted(newTransId());
    const page = await client.get(created.body._links.redirect.href);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Cancel and return to the shop');
    const cancel = formWithAction(page.html, t.url, '/cancel');
    expect(cancel.action).toBe(`${t.url}/hosted/payments/${created.body.payId}/cancel`);
    expect(Object.keys(cancel.fields).sort()).toEqual(['csrf', 't']);
    // Browsers apply form-action to the 303 after the post: the shop's origin must be allowed, and nothing else.
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://shop.example;");
  });

  it('the card step speaks the payment language on its cancel control too', async () => {
    const created = await createHosted(newTransId(), { language: 'de' });
    const page = await client.get(created.body._links.redirect.href);
    expect(page.html).toContain(MESSAGES.de.cancelAndReturn);
  });

  // The defect of the black-box review: Back from the card step left the transId blocked (409) for up to 30 minutes.
  it('cancel on the card step: FAILED 20040002 with payment.failed, urls.cancel?PayID=…, then the same transId is accepted', async () => {
    const transId = newTransId();
    const created = await createHosted(transId);
    expect(created.status).toBe(202);
    expect((await createHosted(transId)).body.code).toBe('TRANS_ID_IN_USE');
    const page = await client.get(created.body._links.redirect.href);
    const res = await client.submit(formWithAction(page.html, t.url, '/cancel'));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${CANCEL}?PayID=${created.body.payId}`);
    expect(await details(created.body.payId)).toMatchObject({ status: 'FAILED', responseCode: '20040002' });
    const failed = await failedEvents(created.body.payId);
    expect(failed).toHaveLength(1);
    expect(failed[0]?.payload).toMatchObject({ payId: created.body.payId, transId, responseCode: '20040002' });

    const retried = await createHosted(transId);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ transId, status: 'PENDING' });
    expect(retried.body.payId).not.toBe(created.body.payId);
    const latest = await t.call('GET', `/api/v2/payments/getByTransId/${transId}`, { auth: dk });
    expect(latest.body.payId).toBe(retried.body.payId);
  });

  it('cancel on the card step after a card was typed (Back from the review step) forgets the card', async () => {
    const created = await createHosted(newTransId());
    const page = await client.get(created.body._links.redirect.href);
    const typed = await client.submit(formWithAction(page.html, t.url, '/card'), {
      number: '4000000000010001',
      expiry: '12/30',
      securityCode: '123',
    });
    expect(typed.status).toBe(303);
    const res = await client.submit(formWithAction(page.html, t.url, '/cancel'));
    expect(res.headers.get('location')).toBe(`${CANCEL}?PayID=${created.body.payId}`);
    expect(await t.kassa.services.hosted.paymentForPage(created.body.payId)).toMatchObject({
      payment: { status: 'FAILED', responseCode: '20040002' },
    });
    const kept = await t.database.db.kysely
      .selectFrom('pending_card')
      .select('pay_id')
      .where('pay_id', '=', created.body.payId)
      .execute();
    expect(kept).toEqual([]);
  });

  // Security: the cancel form is checked as the review step's is — a forged or foreign post cannot end a payment.
  it('a card-step cancel with a tampered, foreign or missing token is refused 403 and the payment stays PENDING', async () => {
    const a = await createHosted(newTransId());
    const b = await createHosted(newTransId());
    const pageA = await client.get(a.body._links.redirect.href);
    const pageB = await client.get(b.body._links.redirect.href);
    const cancelA = formWithAction(pageA.html, t.url, '/cancel');
    const cancelB = formWithAction(pageB.html, t.url, '/cancel');
    for (const fields of [
      { t: cancelA.fields.t ?? '' },
      { csrf: cancelA.fields.csrf ?? '' },
      { t: cancelA.fields.t ?? '', csrf: tampered(cancelA.fields.csrf ?? '') },
      { t: tampered(cancelA.fields.t ?? ''), csrf: cancelA.fields.csrf ?? '' },
      { t: cancelA.fields.t ?? '', csrf: cancelB.fields.csrf ?? '' },
      cancelB.fields,
    ]) {
      const res = await client.post(cancelA.action, fields);
      expect(res.status, JSON.stringify(fields)).toBe(403);
      expect(res.headers.get('location')).toBeNull();
    }
    expect(await details(a.body.payId)).toMatchObject({ status: 'PENDING', responseCode: '60040001' });
    expect(await failedEvents(a.body.payId)).toEqual([]);
  });

  it('cancel on the checkout page with a try waiting on the card step: that try FAILED 20040002, urls.cancel?PayID=…, a new session with the same transId is accepted', async () => {
    const transId = newTransId();
    const session = await createSession(transId);
    expect(session.status).toBe(201);
    const checkout = await client.get(session.body._links.redirect.href);
    expect(checkout.html).toContain('Cancel and return to the shop');
    const started = await client.submit(formWithAction(checkout.html, t.url, '/start'));
    const payId = new URL(started.headers.get('location') ?? '', t.url).pathname.split('/').pop() ?? '';
    // Back from the card step to the checkout page, then cancel.
    expect((await createSession(transId)).body.code).toBe('TRANS_ID_IN_USE');
    const res = await client.submit(formWithAction(checkout.html, t.url, `/sessions/${session.body.sessionId}/cancel`));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${CANCEL}?PayID=${payId}`);
    expect(await details(payId)).toMatchObject({ status: 'FAILED', responseCode: '20040002', transId });
    expect(await failedEvents(payId)).toHaveLength(1);
    expect((await createSession(transId)).status).toBe(201);
  });

  it('cancel on the checkout page before the card step: a cancelled payment gives urls.cancel its PayID', async () => {
    const transId = newTransId();
    const session = await createSession(transId);
    const checkout = await client.get(session.body._links.redirect.href);
    const res = await client.submit(formWithAction(checkout.html, t.url, '/cancel'));
    expect(res.status).toBe(303);
    const latest = (await t.call('GET', `/api/v2/payments/getByTransId/${transId}`, { auth: dk })).body;
    expect(latest).toMatchObject({ status: 'FAILED', responseCode: '20040002' });
    expect(res.headers.get('location')).toBe(`${CANCEL}?PayID=${latest.payId}`);
    expect(await failedEvents(latest.payId)).toHaveLength(1);
    expect((await createHosted(transId)).status).toBe(202);
  });

  // Security: as the checkout page's continue form.
  it('a checkout-page cancel with a tampered, foreign or missing token is refused 403 and starts nothing', async () => {
    const transId = newTransId();
    const session = await createSession(transId);
    const other = await createSession(newTransId());
    const cancel = formWithAction((await client.get(session.body._links.redirect.href)).html, t.url, '/cancel');
    const foreign = formWithAction((await client.get(other.body._links.redirect.href)).html, t.url, '/cancel');
    for (const fields of [
      { t: cancel.fields.t ?? '' },
      { csrf: cancel.fields.csrf ?? '' },
      { t: cancel.fields.t ?? '', csrf: tampered(cancel.fields.csrf ?? '') },
      foreign.fields,
    ]) {
      const res = await client.post(cancel.action, fields);
      expect(res.status, JSON.stringify(fields)).toBe(403);
    }
    expect((await t.call('GET', `/api/v2/payments/getByTransId/${transId}`, { auth: dk })).status).toBe(404);
  });
});
