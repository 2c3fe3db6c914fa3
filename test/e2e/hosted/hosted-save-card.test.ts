/**
 * The hosted save-card step in Debian's Chromium (playwright-core): an initial `credentialOnFile` payment through the
 * hosted card form (Danish, subscription, 3-D Secure challenge) and through the hosted payment page (English,
 * instalments). The card step discloses, in the page's language, that the card will be saved and for what; axe-core
 * finds no violations; on success the details carry the pseudo card number, and the merchant charges it later
 * without the cardholder (MIT).
 */
import { mkdirSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../../src/hosted/i18n.js';
import { testPan } from '../../helpers/cards.js';
import { haveChromium, launchChromium } from '../../helpers/chromium.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

const ARTIFACTS = 'test-artifacts';
const SHOP = 'https://shop.example';
const URLS = { return: `${SHOP}/return`, cancel: `${SHOP}/cancel` };

describe.skipIf(!haveChromium).sequential('hosted save-card step in Chromium', () => {
  let browser: Browser;
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [t, browser] = await Promise.all([startTestKassa('sqlite'), launchChromium()]);
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK' });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function expectAccessible(page: Page, label: string) {
    const result = await new AxeBuilder({ page }).analyze();
    const violations = result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target).join(', ')})`);
    expect(violations, `axe-core on ${label}`).toEqual([]);
  }

  it.each([
    {
      name: 'forms-da-subscription-challenge',
      integration: 'HOSTED_FORMS' as const,
      language: 'da' as const,
      pan: testPan('40000000', '1005', '801'),
      credentialOnFile: { type: 'RECURRING', initialPayment: true, recurring: { frequency: 'MONTHLY' } },
      purpose: MESSAGES.da.saveCardRecurring,
    },
    {
      name: 'page-en-instalments',
      integration: 'PAYMENT_PAGE' as const,
      language: 'en' as const,
      pan: testPan('51000000', '1000', '802'),
      credentialOnFile: {
        type: 'INSTALLMENTS',
        initialPayment: true,
        installments: { total: 4, frequency: 'MONTHLY' },
      },
      purpose: MESSAGES.en.saveCardInstallments,
    },
  ])(
    '$name: the card step discloses the saving, the card is stored, an MIT charges it',
    async (c) => {
      const t_ = MESSAGES[c.language];
      const transId = `e2e-save-${c.name}-${Date.now()}`;
      const common = {
        transId,
        amount: { value: 14_900, currency: 'DKK' },
        urls: URLS,
        language: c.language,
        credentialOnFile: c.credentialOnFile,
      };
      const created =
        c.integration === 'HOSTED_FORMS'
          ? await t.call('POST', '/api/v2/payments', {
              auth: merchant,
              json: { ...common, paymentMethods: { type: 'CARD', integrationType: 'HOSTED' } },
            })
          : await t.call('POST', '/api/v2/payments/sessions', {
              auth: merchant,
              json: { ...common, order: { items: [{ name: 'Kaffe', quantity: 1, grossPrice: 14_900 }] } },
            });
      expect(created.status).toBeLessThan(300);

      const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-GB' });
      await context.route(`${SHOP}/**`, (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Shop</title><p>Shop</p>' }),
      );
      const page = await context.newPage();
      try {
        await page.goto(created.body._links.redirect.href);
        if (c.integration === 'PAYMENT_PAGE') await page.getByRole('button', { name: t_.continueToPayment }).click();
        await page.locator('#number').waitFor();

        // The disclosure: a labelled region, in the page's language, naming the merchant and the purpose.
        const region = page.getByRole('region', { name: t_.saveCardTitle });
        await region.waitFor();
        const text = (await region.textContent()) ?? '';
        const merchantName = merchant.merchantId;
        expect(text).toContain(t_.saveCardTitle);
        expect(text).toContain(merchantName);
        expect(text).toContain(c.purpose.split('{merchant}')[0]?.trim() ?? '');
        if (c.credentialOnFile.type === 'INSTALLMENTS') expect(text).toContain('4');
        expect(await page.locator('html').getAttribute('lang')).toBe(c.language);
        await expectAccessible(page, 'save-card step');
        await page.screenshot({ path: `${ARTIFACTS}/hosted-save-card-${c.name}.png`, fullPage: true });

        await page.locator('#number').fill(c.pan);
        await page.locator('#expiry').fill('12/30');
        await page.locator('#securityCode').fill('123');
        await page.getByRole('button', { name: t_.next }).click();
        const confirm = page.getByRole('button', { name: new RegExp(`^${t_.pay.split(' ')[0]} `) });
        await confirm.waitFor();
        await confirm.click();
        if (c.pan.slice(-5, -1) === '1005') {
          const otp = page.getByLabel('One-time code');
          await otp.waitFor();
          await otp.fill('1234');
          await page.getByRole('button', { name: 'Submit' }).click();
        }
        await page.waitForURL(new RegExp(`^${SHOP}/return\\?PayI[dD]=[0-9a-f]{32}$`), { timeout: 20_000 });
      } finally {
        await context.close();
      }

      const details = (await t.call('GET', `/api/v2/payments/getByTransId/${transId}`, { auth: merchant })).body;
      expect(details).toMatchObject({ status: 'OK' });
      const pseudo = details.paymentMethods.card.pseudoCardNumber;
      expect(pseudo).toMatch(/^0\d{15}$/);
      expect(details.paymentMethods.card.schemeReferenceId).toBeTruthy();

      const mit = await t.call('POST', '/api/v2/payments', {
        auth: merchant,
        json: {
          transId: `${transId}-mit`,
          amount: { value: 14_900, currency: 'DKK' },
          paymentMethods: { type: 'CARD', integrationType: 'DIRECT', card: { number: pseudo, expiryDate: '203012' } },
          credentialOnFile: { type: c.credentialOnFile.type, initialPayment: false },
        },
      });
      expect(mit.body).toMatchObject({ status: 'OK', responseCode: '00000000' });
    },
    90_000,
  );

  it('a hosted payment with a stored card (not an initial payment) is refused naming credentialOnFile.initialPayment', async () => {
    const res = await t.call('POST', '/api/v2/payments', {
      auth: merchant,
      json: {
        transId: `e2e-hosted-mit-${Date.now()}`,
        amount: { value: 100, currency: 'DKK' },
        urls: URLS,
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        credentialOnFile: { type: 'RECURRING', initialPayment: false },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('credentialOnFile.initialPayment');
  });
});
