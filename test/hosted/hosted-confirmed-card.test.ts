/**
 * The card a hosted payment is authorized with is the card the cardholder confirmed (DESIGN.md §7), and a hosted link
 * opened again while 3-D Secure is open resumes it (docs/3ds.md). Driven as a browser without JavaScript, with two
 * "tabs" sharing one payment link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeBrowserChallenge } from '../e2e/threeds/three-ds-driver.js';
import { testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient, formWithAction, readForm } from '../helpers/form-client.js';
import { followToMerchant } from '../helpers/hosted-client.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const RETURN = 'https://shop.example/return';
const CANCEL = 'https://shop.example/cancel';

describe.each(DIALECTS)('a hosted payment after Pay (%s)', (dialect) => {
  let t: TestKassa;
  let client: FormClient;
  let dk: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    client = new FormClient(t.ca, t.url);
    dk = await t.createMerchant({ country: 'DK', currency: 'DKK', webhookUrl: 'http://127.0.0.1:9/kassa-events' });
    await t.kassa.services.surcharge.enable(
      dk.merchantId,
      [{ brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 180 }],
      'test',
    );
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const createHosted = async (value = 10_000) => {
    const res = await t.call('POST', '/api/v1/payments', {
      auth: dk,
      json: {
        transId: `hc-${Math.random().toString(36).slice(2)}`,
        amount: { value, currency: 'DKK' },
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        urls: { return: RETURN, cancel: CANCEL },
      },
    });
    expect(res.status).toBe(202);
    return res.body as { payId: string; _links: { redirect: { href: string } } };
  };

  const postCard = (cardPageHtml: string, pan: string) => {
    const { action, fields } = formWithAction(cardPageHtml, t.url, '/card');
    return client.post(action, { ...fields, number: pan, expiry: '12/30', securityCode: '123' });
  };

  /** Card step → review step: the review page of `pan`. */
  const review = async (link: string, pan: string) => {
    const afterCard = await postCard((await client.get(link)).html, pan);
    expect(afterCard.status).toBe(303);
    return client.get(afterCard.headers.get('location') ?? '');
  };

  const details = async (payId: string) =>
    (await t.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth: dk })).body;

  // Money guard: a card (and a card fee) the cardholder never confirmed is never charged.
  it('once Pay is pressed, the hosted link shows the 3-D Secure step, a second card is refused, and the confirmed card is charged with its fee', async () => {
    const p = await createHosted();
    const visa = testPan('40000010', '1000'); // commercial Visa: card fee 180
    const tab2CardPage = await client.get(p._links.redirect.href); // the second tab opened the card step earlier
    const tab1Review = await review(p._links.redirect.href, visa);
    const confirm = formWithAction(tab1Review.html, t.url, '/confirm');
    const paid = await client.post(confirm.action, confirm.fields);
    expect(paid.status).toBe(303);
    const methodPage = paid.headers.get('location') ?? '';
    expect(methodPage).toContain(`/3ds/method/${p.payId}?token=`);
    expect(await details(p.payId)).toMatchObject({ status: 'PENDING', responseCode: '60010003' });

    // The hosted link again (a second tab): the payment's current step, not the card form.
    const again = await client.get(p._links.redirect.href);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(methodPage);
    // A card posted from the card form the second tab still shows: refused, on to the current step.
    const mastercard = testPan('51000000', '1000'); // consumer Mastercard, no fee
    const second = await postCard(tab2CardPage.html, mastercard);
    expect(second.status).toBe(303);
    expect(second.headers.get('location')).toBe(methodPage);
    // The live preview of that form is over too.
    const { fields } = formWithAction(tab2CardPage.html, t.url, '/card');
    const quote = await client.post(`/hosted/payments/${p.payId}/quote`, {
      t: fields.t ?? '',
      csrf: fields.csrf ?? '',
      bin: '51000000',
    });
    expect(quote.status).toBe(409);

    const done = await followToMerchant(client, t.url, await client.get(methodPage));
    expect(done.external).toBe(`${RETURN}?PayID=${p.payId}`);
    expect(await details(p.payId)).toMatchObject({
      status: 'OK',
      paymentMethods: { card: { brand: 'VISA', last4Digits: visa.slice(-4) } },
      surcharge: { status: 'APPLIED', value: 180, capturedValue: 180 },
      totalAmount: { value: 10_180, capturedValue: 10_180 },
    });
  });

  // Money guard: a review page left open does not confirm a card changed in another tab, even at the same total.
  it('Pay on a review of one card after the card changed in another tab (same total) is refused with the review again, nothing charged', async () => {
    const p = await createHosted();
    const visa = testPan('40000000', '1000'); // consumer Visa (DK): no fee
    const mastercard = testPan('51000000', '1000'); // consumer Mastercard: no fee, same total
    const tab1Review = await review(p._links.redirect.href, visa);
    expect(tab1Review.html).toContain(`•••• ${visa.slice(-4)}`);
    await review(p._links.redirect.href, mastercard); // tab 2
    const confirm = formWithAction(tab1Review.html, t.url, '/confirm');
    const res = await client.post(confirm.action, confirm.fields);
    expect(res.status).toBe(409);
    expect(res.html).toContain('The amounts have changed');
    // The review shown again is of the card now stored, and confirming that one goes on to 3-D Secure.
    expect(res.html).toContain(`Mastercard •••• ${mastercard.slice(-4)}`);
    expect(await details(p.payId)).toMatchObject({ status: 'PENDING', responseCode: '60040001' });
    const again = formWithAction(res.html, t.url, '/confirm');
    const paid = await client.post(again.action, again.fields);
    expect(paid.headers.get('location')).toContain(`/3ds/method/${p.payId}?token=`);
    await followToMerchant(client, t.url, await client.get(paid.headers.get('location') ?? ''));
    expect(await details(p.payId)).toMatchObject({
      status: 'OK',
      paymentMethods: { card: { brand: 'MASTERCARD', last4Digits: mastercard.slice(-4) } },
    });
  });

  it('while the challenge is open, the hosted link and the review step lead back to it; once final, to the shop', async () => {
    const p = await createHosted();
    const tab1Review = await review(p._links.redirect.href, testPan('40000000', '1005'));
    const confirm = formWithAction(tab1Review.html, t.url, '/confirm');
    const method = await client.get((await client.post(confirm.action, confirm.fields)).headers.get('location') ?? '');
    const continueUrl = method.html.match(/<a class="button" href="([^"]+)"/)?.[1]?.replaceAll('&amp;', '&') ?? '';
    const challengePage = await client.get(continueUrl);
    expect(readForm(challengePage.html, t.url, 'autopost')?.fields.creq).toBeTruthy();
    const open = await details(p.payId);
    expect(open).toMatchObject({ status: 'PENDING', responseCode: '60010001' });

    // The link getByPayId advertises, opened again (or Back to the review step): the open challenge, not the shop.
    for (const link of [
      open._links.redirect.href,
      p._links.redirect.href,
      `${p._links.redirect.href.replace('?', '/review?')}`,
    ]) {
      const res = await client.get(link);
      expect(res.status, link).toBe(303);
      expect(res.headers.get('location'), link).toMatch(new RegExp(`/3ds/challenge/${p.payId}\\?token=`));
    }
    const challengeHref = new URL((await client.get(p._links.redirect.href)).headers.get('location') ?? '', t.url);
    const final = await completeBrowserChallenge(client, challengeHref.toString(), { otp: '1234' });
    expect(final.next).toBe(`${RETURN}?PayID=${p.payId}`);
    expect(await details(p.payId)).toMatchObject({ status: 'OK', threeDS: { transStatus: 'Y' } });
    const after = await client.get(p._links.redirect.href);
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe(`${RETURN}?PayID=${p.payId}`);
  });
});
