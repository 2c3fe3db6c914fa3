import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPan } from '../helpers/cards.js';
import { FormClient } from '../helpers/form-client.js';
import { payInHostedSession } from '../helpers/hosted-client.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const SHOP = 'https://shop.example';
const URLS = { return: `${SHOP}/return`, cancel: `${SHOP}/cancel` };

/** The `frame-ancestors` directive of an answer's Content-Security-Policy. */
const frameAncestors = (headers: Headers) =>
  (headers.get('content-security-policy') ?? '').split('; ').find((d) => d.startsWith('frame-ancestors '));

/**
 * Who may frame Kassa's pages (docs/decisions.md, "The merchant's own site may frame the hosted pages"), without a
 * browser: the shop plugins' iframe mode needs the merchant's site (the origins of urls.return and urls.cancel) to
 * frame every page of a payment's flow; no other site may (clickjacking), and X-Frame-Options, which cannot name the
 * shop, is left out where the shop may frame. The browser test (test/e2e/hosted/hosted-iframe-browser.test.ts) pays
 * inside such a frame.
 */
describe('who may frame the hosted pages', () => {
  let t: TestKassa;
  let m: { merchantId: string; apiKey: string };
  let client: FormClient;

  beforeAll(async () => {
    t = await startTestKassa('sqlite');
    m = await t.createMerchant({ country: 'DK', currency: 'DKK' });
    client = new FormClient(t.ca, t.url);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const expectFramedByTheShop = (headers: Headers, page: string) => {
    expect(frameAncestors(headers), page).toBe(`frame-ancestors 'self' ${SHOP}`);
    expect(headers.get('x-frame-options'), page).toBeNull();
  };

  const createSession = async () =>
    (
      await t.call('POST', '/api/v2/payments/sessions', {
        auth: m,
        json: {
          transId: `frame-${Math.random().toString(36).slice(2)}`,
          amount: { value: 4_990, currency: 'DKK' },
          urls: URLS,
        },
      })
    ).body as { sessionId: string; _links: { redirect: { href: string } } };

  it('a HOSTED payment’s card step and review step: by the shop only', async () => {
    const created = await t.call('POST', '/api/v2/payments', {
      auth: m,
      json: {
        transId: `frame-${Math.random().toString(36).slice(2)}`,
        amount: { value: 4_990, currency: 'DKK' },
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        urls: URLS,
      },
    });
    const cardPage = await client.get(created.body._links.redirect.href);
    expect(cardPage.status).toBe(200);
    expectFramedByTheShop(cardPage.headers, 'card step');
    const { review } = await payInHostedSession(
      client,
      t.url,
      created.body._links.redirect.href,
      testPan('40000000', '1000'),
    );
    expect(review.status).toBe(200);
    expectFramedByTheShop(review.headers, 'review step');
  });

  it('a session’s checkout page, its declined try’s "try another card" page, and its page once paid', async () => {
    const session = await createSession();
    const checkout = await client.get(session._links.redirect.href);
    expectFramedByTheShop(checkout.headers, 'checkout');
    const declined = await payInHostedSession(client, t.url, session._links.redirect.href, testPan('40000000', '1100'));
    const tryAgain = declined.done.page as { status: number; html: string; headers: Headers };
    expect(tryAgain.html).toContain('The payment was declined');
    expectFramedByTheShop(tryAgain.headers, 'declined try');
    const paid = await payInHostedSession(client, t.url, session._links.redirect.href, testPan('40000000', '1000'));
    expect(paid.done.external).toMatch(new RegExp(`^${SHOP}/return\\?PayID=`));
    const completed = await client.get(session._links.redirect.href);
    expect(completed.status).toBe(409);
    expectFramedByTheShop(completed.headers, 'completed session');
  });

  it('a page that cannot tell whose it is (an invalid link) is framed by nobody', async () => {
    const session = await createSession();
    const href = new URL(session._links.redirect.href);
    href.searchParams.set('t', 'A'.repeat(43));
    const invalid = await client.get(href.toString());
    expect(invalid.status).toBe(403);
    expect(frameAncestors(invalid.headers)).toBe("frame-ancestors 'none'");
    expect(invalid.headers.get('x-frame-options')).toBe('DENY');
  });

  it('the 3DS Method notification page (nothing to click) and the simulated ACS may be framed by any site', async () => {
    const notification = await client.post(`${t.url}/3ds/method-notification/${'0'.repeat(32)}`, {
      threeDSMethodData: 'e30',
    });
    expect(frameAncestors(notification.headers)).toBe("frame-ancestors 'self' *");
    expect(notification.headers.get('x-frame-options')).toBeNull();
    const acs = await client.post(`${t.url}/simulator/acs/method`, { threeDSMethodData: 'not base64url json' });
    expect(frameAncestors(acs.headers)).toBe('frame-ancestors *');
    expect(acs.headers.get('x-frame-options')).toBeNull();
  });
});
