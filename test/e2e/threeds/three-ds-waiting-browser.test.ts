/**
 * Browser tests (Debian's Chromium, playwright-core) of the 3-D Secure pages a cardholder waits on: the "waiting for
 * your bank" page of a decoupled authentication (axe-core, no timed refresh, moves on by itself with JavaScript and by
 * its Check again link without), and Back during a hosted payment's challenge (back to the open challenge, not the
 * shop). Serial, one browser for the file (2-core CI). Each wait has its own timeout, well inside the test's, so a slow
 * run fails naming the step it was stuck at (CI once timed the first test out at 40 s with no step named).
 */
import { mkdirSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATOR_DECOUPLED_CARDHOLDER_INFO } from '../../../src/integrations/threeds-simulator/simulator-directory-server.js';
import { BROWSER_INFO, directPayment, testPan } from '../../helpers/cards.js';
import { CHROMIUM, haveChromium, launchChromium } from '../../helpers/chromium.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

const ARTIFACTS = 'test-artifacts';
const SHOP = 'https://shop.example';
const URLS = { return: `${SHOP}/return`, cancel: `${SHOP}/cancel` };
/** One browser step's limit and a test's (a loaded 2-core CI machine runs these beside the rest of the suite). */
const STEP_MS = 20_000;
const TEST_MS = 90_000;
if (!haveChromium) console.warn(`${CHROMIUM} not found: 3-D Secure waiting-page browser tests skipped.`);

describe.skipIf(!haveChromium).sequential('3-D Secure waiting and Back in Chromium', { timeout: TEST_MS }, () => {
  let browser: Browser;
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [t, browser] = await Promise.all([startTestKassa('sqlite'), launchChromium()]);
    merchant = await t.createMerchant();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function openPage(
    javaScriptEnabled = true,
  ): Promise<{ context: BrowserContext; page: Page; cspViolations: string[] }> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-GB', javaScriptEnabled });
    await context.route(`${SHOP}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Shop</title><p>Shop</p>' }),
    );
    context.setDefaultTimeout(STEP_MS);
    const page = await context.newPage();
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    return { context, page, cspViolations };
  }

  /** A DIRECT decoupled payment (D, the sandbox issuer approves after about 3 s) run through Kassa's pages. */
  async function decoupled() {
    const res = await t.call('POST', '/api/v1/payments', {
      auth: merchant,
      json: directPayment(
        testPan('40000000', '1007'),
        { urls: URLS, browserInfo: { ...BROWSER_INFO, language: 'en-GB' } },
        { challengePreference: 'NO_PREFERENCE', browserAuthentication: 'REDIRECT' },
      ),
    });
    expect(res.status).toBe(201);
    return res.body as { payId: string; _links: { redirect: { href: string } } };
  }

  it('the waiting page has no axe violations and no timed refresh, and moves on to the shop once the bank answered', async () => {
    const created = await decoupled();
    const { context, page, cspViolations } = await openPage();
    // The page's own polls (fetch) of its retry URL are held until the checks of the page are done: the sandbox issuer
    // answers after about 3 s, and on a loaded machine axe-core alone took longer (the page had moved on to the shop
    // before its text was checked). Navigations are left alone.
    let release = () => {};
    const checked = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(
      (url) => url.pathname.startsWith('/3ds/'),
      async (route) => {
        if (route.request().resourceType() === 'fetch') await checked;
        return route.continue();
      },
    );
    try {
      await page.goto(created._links.redirect.href);
      await page.getByRole('heading', { name: 'Waiting for your bank' }).waitFor();
      const axe = await new AxeBuilder({ page }).analyze();
      expect(
        axe.violations.map((v) => `${v.id}: ${v.help}`),
        'axe-core on the waiting page',
      ).toEqual([]);
      expect(await page.locator('meta[http-equiv="refresh" i]').count()).toBe(0);
      expect(await page.getByRole('status').getAttribute('aria-live')).toBe('polite');
      // EMV 3DS: the issuer's cardholderInfo of the decoupled ARes is shown to the cardholder.
      expect(await page.getByText(SIMULATOR_DECOUPLED_CARDHOLDER_INFO).count()).toBe(1);
      await page.screenshot({ path: `${ARTIFACTS}/threeds-waiting.png`, fullPage: true });
      expect(page.url(), 'the page waits while its polls are held').not.toContain(SHOP);
      release();
      await page.waitForURL(`${URLS.return}?PayID=${created.payId}`, { timeout: STEP_MS });
      expect(cspViolations).toEqual([]);
    } finally {
      release();
      await context.close();
    }
    const details = await t.call('GET', `/api/v1/payments/getByPayId/${created.payId}`, { auth: merchant });
    expect(details.body).toMatchObject({ status: 'OK', threeDS: { transStatus: 'Y' } });
  });

  it('a 503 while the waiting page polls (database or node briefly unavailable) keeps it waiting; it moves on after', async () => {
    const created = await decoupled();
    const { context, page } = await openPage();
    try {
      await page.goto(created._links.redirect.href);
      await page.getByRole('heading', { name: 'Waiting for your bank' }).waitFor();
      const waitingUrl = page.url();
      let refused = 0;
      // The page's own polls (fetch) of its retry URL answer 503 for a while; navigations are left alone.
      await page.route(
        (url) => url.pathname.startsWith('/3ds/'),
        async (route) => {
          if (route.request().resourceType() !== 'fetch' || refused >= 2) return route.continue();
          refused++;
          return route.fulfill({
            status: 503,
            contentType: 'application/problem+json',
            body: '{"code":"DATABASE_UNAVAILABLE"}',
          });
        },
      );
      await expect.poll(() => refused, { timeout: 15_000 }).toBe(2);
      expect(page.url()).toBe(waitingUrl);
      await page.waitForURL(`${URLS.return}?PayID=${created.payId}`, { timeout: STEP_MS });
    } finally {
      await context.close();
    }
  });

  it('without JavaScript the waiting page offers Check again, which leads to the shop once the bank answered', async () => {
    const created = await decoupled();
    const { context, page } = await openPage(false);
    try {
      // Without JavaScript the 3DS Method page offers its Continue link (threeDSCompInd N).
      await page.goto(created._links.redirect.href);
      await page.getByRole('link', { name: 'Continue' }).click();
      const checkAgain = page.getByRole('link', { name: 'Check again' });
      await checkAgain.waitFor();
      // The payment ends about 3 s later; until then each Check again shows the waiting page again.
      for (let tries = 0; tries < 20 && !page.url().startsWith(SHOP); tries++) {
        if ((await checkAgain.count()) === 0) break;
        await page.waitForTimeout(1_000);
        await checkAgain.click();
      }
      // The final page sends the browser on by itself (a 0-second refresh in <noscript>, no timed wait).
      await page.waitForURL(`${URLS.return}?PayID=${created.payId}`, { timeout: 10_000 });
    } finally {
      await context.close();
    }
  });

  it('Back during a hosted payment challenge returns to the open challenge, not the shop; the challenge then completes', async () => {
    const res = await t.call('POST', '/api/v1/payments', {
      auth: merchant,
      json: {
        transId: `back-${Date.now()}`,
        amount: { value: 10_000, currency: 'DKK' },
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        urls: URLS,
      },
    });
    expect(res.status).toBe(202);
    const { payId } = res.body as { payId: string };
    const { context, page, cspViolations } = await openPage();
    try {
      await page.goto(res.body._links.redirect.href);
      await page.locator('#number').fill(testPan('40000000', '1005'));
      await page.locator('#expiry').fill('12/30');
      await page.locator('#securityCode').fill('123');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('button', { name: /^Pay / }).click();
      const otp = page.getByLabel('One-time code');
      await otp.waitFor();
      await page.goBack();
      await otp.waitFor({ timeout: 10_000 });
      expect(page.url().startsWith(SHOP)).toBe(false);
      const open = await t.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth: merchant });
      expect(open.body).toMatchObject({ status: 'PENDING', responseCode: '60010001' });
      await otp.fill('1234');
      await page.getByRole('button', { name: 'Submit' }).click();
      await page.waitForURL(`${URLS.return}?PayID=${payId}`, { timeout: STEP_MS });
      expect(cspViolations).toEqual([]);
    } finally {
      await context.close();
    }
    const done = await t.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth: merchant });
    expect(done.body).toMatchObject({ status: 'OK', threeDS: { transStatus: 'Y' } });
  });
});
