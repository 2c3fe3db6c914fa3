/**
 * "Cancel and return to the shop" in Debian's Chromium (playwright-core): on a HOSTED payment's card step (reached
 * and pressed with the keyboard only) and on a session's checkout page in Danish. The control is visible, the pages
 * stay axe-clean and within their CSP, the browser lands on urls.cancel with PayID, and the shop's retry with the same
 * transId is accepted at once. Serial, one browser (2 cores); a screenshot of the page goes to test-artifacts/ when a
 * step fails.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../../src/hosted/i18n.js';
import { CHROMIUM, haveChromium, inChromiumPage, launchChromium } from '../../helpers/chromium.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

const ARTIFACTS = 'test-artifacts';
if (!haveChromium) console.warn(`${CHROMIUM} not found: hosted cancel browser tests skipped (CI installs chromium).`);

describe.skipIf(!haveChromium).sequential('cancel and return to the shop in Chromium', () => {
  let browser: Browser;
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };
  // The shop: a real local server (a sandbox merchant's http loopback URLs), because the browser reaches it through
  // Kassa's 303, a redirect Playwright's request routing does not intercept.
  let shop: Server;
  let SHOP: string;
  let URLS: { return: string; cancel: string };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    shop = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Shop</title><p>Shop</p>'),
    );
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    SHOP = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    URLS = { return: `${SHOP}/return`, cancel: `${SHOP}/cancel` };
    [t, browser] = await Promise.all([startTestKassa('sqlite'), launchChromium()]);
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK', sandbox: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => shop?.close(resolve));
  });

  /** A page recording CSP violations (with a screenshot when `run` failed). */
  const inBrowser = (name: string, run: (page: Page, cspViolations: string[]) => Promise<void>) =>
    inChromiumPage(browser, `hosted-cancel-${name}`, /Content Security Policy/i, run);

  async function expectAccessible(page: Page, label: string) {
    const result = await new AxeBuilder({ page }).analyze();
    const violations = result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target).join(', ')})`);
    expect(violations, `axe-core on ${label}`).toEqual([]);
  }

  const createHosted = (transId: string) =>
    t.call('POST', '/api/v2/payments', {
      auth: merchant,
      json: {
        transId,
        amount: { value: 12_900, currency: 'DKK' },
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        urls: URLS,
      },
    });

  it('card step: the control is visible and axe-clean; keyboard Tab + Enter cancels to urls.cancel?PayID; the transId is free again', async () => {
    const transId = `e2e-cancel-${Date.now()}`;
    const created = await createHosted(transId);
    expect(created.status).toBe(202);
    const payId: string = created.body.payId;
    await inBrowser('card-step', async (page, cspViolations) => {
      await page.goto(created.body._links.redirect.href);
      const cancel = page.getByRole('button', { name: MESSAGES.en.cancelAndReturn });
      await cancel.waitFor();
      expect(await cancel.isVisible()).toBe(true);
      await expectAccessible(page, 'card step with its cancel control');
      await page.screenshot({ path: `${ARTIFACTS}/hosted-cancel-card-step.png`, fullPage: true });
      // Keyboard only: Tab through the card form to the control, then Enter.
      let reached = false;
      for (let i = 0; i < 20 && !reached; i++) {
        await page.keyboard.press('Tab');
        reached = await cancel.evaluate((el) => el === document.activeElement);
      }
      expect(reached, 'the cancel control is reachable with Tab').toBe(true);
      await page.keyboard.press('Enter');
      await page.waitForURL(`${SHOP}/cancel?PayID=${payId}`, { timeout: 20_000 });
      expect(cspViolations).toEqual([]);
    });
    const details = await t.call('GET', `/api/v2/payments/getByPayId/${payId}`, { auth: merchant });
    expect(details.body).toMatchObject({ status: 'FAILED', responseCode: '20040002' });
    const retried = await createHosted(transId);
    expect(retried.status).toBe(202);
    expect(retried.body.payId).not.toBe(payId);
  }, 60_000);

  it('session checkout page in Danish: the control is labelled in Danish, axe-clean, and cancels to urls.cancel?PayID', async () => {
    const transId = `e2e-cancel-session-${Date.now()}`;
    const created = await t.call('POST', '/api/v2/payments/sessions', {
      auth: merchant,
      json: {
        transId,
        amount: { value: 4_990, currency: 'DKK' },
        language: 'da',
        urls: URLS,
        order: { items: [{ name: 'Kaffe', quantity: 1, grossPrice: 4_990 }] },
      },
    });
    expect(created.status).toBe(201);
    await inBrowser('checkout', async (page, cspViolations) => {
      await page.goto(created.body._links.redirect.href);
      const cancel = page.getByRole('button', { name: MESSAGES.da.cancelAndReturn });
      await cancel.waitFor();
      expect(await cancel.isVisible()).toBe(true);
      await expectAccessible(page, 'checkout page with its cancel control');
      // Into the card step and Back, as the shopper of the review did, then cancel on the checkout page.
      await page.getByRole('button', { name: MESSAGES.da.continueToPayment }).click();
      await page.locator('#number').waitFor();
      expect(await page.getByRole('button', { name: MESSAGES.da.cancelAndReturn }).isVisible()).toBe(true);
      await page.goBack();
      await page.getByRole('button', { name: MESSAGES.da.cancelAndReturn }).click();
      await page.waitForURL(new RegExp(`^${SHOP}/cancel\\?PayID=[0-9a-f]{32}$`), { timeout: 20_000 });
      const payId = new URL(page.url()).searchParams.get('PayID');
      const latest = await t.call('GET', `/api/v2/payments/getByTransId/${transId}`, { auth: merchant });
      expect(latest.body).toMatchObject({ payId, status: 'FAILED', responseCode: '20040002' });
      expect(cspViolations).toEqual([]);
    });
  }, 60_000);
});
