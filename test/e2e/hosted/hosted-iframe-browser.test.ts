/**
 * The shop plugins' iframe mode in Debian's Chromium (playwright-core): the Axepta WooCommerce, Magento 2 and
 * PrestaShop plugins show `_links.redirect.href` in an iframe of their own checkout page. The shop's site (the origin
 * of its urls.return / urls.cancel) may frame Kassa's pages, the 3-D Secure pages and the ACS's challenge included, and
 * the payment completes inside the frame; any other site still may not frame them (clickjacking). Serial, one browser
 * (2 cores); a screenshot goes to test-artifacts/ when a step fails.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../../src/hosted/i18n.js';
import { CHROMIUM, haveChromium, inChromiumPage, launchChromium } from '../../helpers/chromium.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

const ARTIFACTS = 'test-artifacts';
if (!haveChromium) console.warn(`${CHROMIUM} not found: hosted iframe browser tests skipped (CI installs chromium).`);

/** A shop on its own origin: `/checkout?src=URL` frames URL as the plugins do; other paths are its own pages. */
async function startShop(): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://shop');
    const src = url.searchParams.get('src');
    const body =
      url.pathname === '/checkout' && src
        ? `<!doctype html><title>Checkout</title><h1>Checkout</h1><iframe title="payment" src="${src.replaceAll('"', '&quot;')}" width="600" height="800"></iframe>`
        : '<!doctype html><title>Shop</title><p>Shop</p>';
    response.writeHead(200, { 'content-type': 'text/html' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe.skipIf(!haveChromium).sequential('the hosted pages inside a shop’s iframe in Chromium', () => {
  let browser: Browser;
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };
  let shop: { server: Server; origin: string };
  let elsewhere: { server: Server; origin: string };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [shop, elsewhere] = await Promise.all([startShop(), startShop()]);
    [t, browser] = await Promise.all([startTestKassa('sqlite'), launchChromium()]);
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK', sandbox: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    for (const s of [shop, elsewhere]) await new Promise((resolve) => s?.server.close(resolve));
  });

  const createHosted = async () => {
    const created = await t.call('POST', '/api/v2/payments', {
      auth: merchant,
      json: {
        transId: `e2e-iframe-${Date.now()}`,
        amount: { value: 12_900, currency: 'DKK' },
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        urls: { return: `${shop.origin}/return`, cancel: `${shop.origin}/cancel` },
      },
    });
    expect(created.status).toBe(202);
    return created.body as { payId: string; _links: { redirect: { href: string } } };
  };

  /** A page whose console messages about framing and the CSP are kept (refusals). */
  const inBrowser = (name: string, run: (page: Page, refusals: string[]) => Promise<void>) =>
    inChromiumPage(browser, `hosted-iframe-${name}`, /Refused|Content Security Policy|X-Frame-Options/i, run);

  const paymentFrame = async (page: Page): Promise<Frame> => {
    const frame = await (await page.waitForSelector('iframe[title="payment"]')).contentFrame();
    if (!frame) throw new Error('no payment frame');
    return frame;
  };

  it('the shop frames the card step, 3-D Secure with its challenge, and gets urls.return?PayID in the frame', async () => {
    const created = await createHosted();
    await inBrowser('pay', async (page, refusals) => {
      await page.goto(`${shop.origin}/checkout?src=${encodeURIComponent(created._links.redirect.href)}`);
      const frame = await paymentFrame(page);
      const number = frame.locator('#number');
      await number.waitFor();
      await number.fill('4000000000010050'); // 1005: a challenge, OTP 1234 (docs/test-cards.md)
      await frame.locator('#expiry').fill('12/30');
      await frame.locator('#securityCode').fill('123');
      await frame.locator('#cardholderName').fill('Alma Jensen');
      await frame.getByRole('button', { name: MESSAGES.en.next }).click();
      await frame.getByRole('button', { name: /^Pay / }).click();
      const otp = frame.getByLabel('One-time code');
      await otp.waitFor({ timeout: 20_000 });
      await otp.fill('1234');
      await frame.getByRole('button', { name: 'Submit' }).click();
      await frame.waitForURL(`${shop.origin}/return?PayID=${created.payId}`, { timeout: 20_000 });
      expect(page.url()).toBe(`${shop.origin}/checkout?src=${encodeURIComponent(created._links.redirect.href)}`);
      expect(refusals).toEqual([]);
    });
    const details = await t.call('GET', `/api/v2/payments/getByPayId/${created.payId}`, { auth: merchant });
    expect(details.body).toMatchObject({ status: 'OK', threeDS: { transStatus: 'Y' } });
  }, 90_000);

  it('another site may not frame the card step', async () => {
    const created = await createHosted();
    await inBrowser('elsewhere', async (page, refusals) => {
      await page.goto(`${elsewhere.origin}/checkout?src=${encodeURIComponent(created._links.redirect.href)}`);
      await expect.poll(() => refusals.some((r) => /frame-ancestors/.test(r)), { timeout: 10_000 }).toBe(true);
      const frame = await paymentFrame(page);
      expect(await frame.locator('#number').count()).toBe(0);
    });
  }, 60_000);
});
