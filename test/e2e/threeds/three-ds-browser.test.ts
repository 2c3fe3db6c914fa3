/**
 * Browser tests of the 3-D Secure pages in Debian's Chromium (playwright-core): a challenge completed with the right
 * code, a wrong code and Cancel; the 3DS Method with a method URL (callback → Y), with an ACS that never calls back
 * (→ N after 10 s) and without a method URL (→ U). Screenshots of the challenge page go to test-artifacts/.
 * Serial, one browser for the file (2-core CI).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidFromPayId } from '../../../src/domain/payments/payment.js';
import { BROWSER_INFO, directPayment, testPan } from '../../helpers/cards.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';
import { authenticationResponseOf } from './three-ds-driver.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = 'test-artifacts';
const SHOP = 'https://shop.example';
const URLS = { return: `${SHOP}/return`, cancel: `${SHOP}/cancel` };
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`${CHROMIUM} not found: 3-D Secure browser tests skipped (CI installs chromium).`);

describe.skipIf(!haveChromium).sequential('3-D Secure pages in Chromium', () => {
  let browser: Browser;
  let t: TestKassa;
  let silent: TestKassa;
  let merchant: { merchantId: string; apiKey: string };
  let silentMerchant: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [t, silent, browser] = await Promise.all([
      startTestKassa('sqlite'),
      startTestKassa('sqlite', { threeDSSimulator: { methodCallback: false } }),
      chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      }),
    ]);
    merchant = await t.createMerchant();
    silentMerchant = await silent.createMerchant();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await silent?.close();
  });

  /** A fresh context whose "shop" answers every return/cancel URL, and which records CSP violations. */
  async function openPage(): Promise<{ context: BrowserContext; page: Page; cspViolations: string[] }> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    await context.route(`${SHOP}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Shop</title><p>Shop</p>' }),
    );
    const page = await context.newPage();
    const cspViolations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    return { context, page, cspViolations };
  }

  async function create(kassa: TestKassa, m: typeof merchant, pan: string, policy: Record<string, unknown> = {}) {
    const res = await kassa.call('POST', '/api/v1/payments', {
      auth: m,
      // The simulated ACS speaks the AReq's browserLanguage: English here, so the labels below are English.
      json: directPayment(pan, { urls: URLS, browserInfo: { ...BROWSER_INFO, language: 'en-GB' } }, policy),
    });
    expect(res.status).toBe(201);
    return res.body as { payId: string; _links: { redirect: { href: string } } };
  }

  const details = async (kassa: TestKassa, m: typeof merchant, payId: string) =>
    (await kassa.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth: m })).body;

  it.each([
    ['the right code', '4000000000010050', { otp: '1234' }, URLS.return, 'OK', '00000000', 'Y'],
    ['a wrong code', testPan('51000000', '1005'), { otp: '9999' }, URLS.return, 'FAILED', '20010001', 'N'],
    ['Cancel', testPan('40000002', '1006'), { cancel: true }, URLS.cancel, 'FAILED', '20010003', 'N'],
  ] as const)(
    'a challenge answered with %s ends at the shop with PayId and the RReq result',
    async (label, pan, action, back, status, responseCode, transStatus) => {
      const created = await create(t, merchant, pan);
      const { context, page, cspViolations } = await openPage();
      try {
        await page.goto(created._links.redirect.href);
        const otp = page.getByLabel('One-time code');
        await otp.waitFor();
        await expect(page.title()).resolves.toBe('Kassa Sandbox Bank: verify your purchase');
        const axe = await new AxeBuilder({ page }).analyze();
        expect(
          axe.violations.map((v) => `${v.id}: ${v.help}`),
          'axe-core on the ACS challenge page',
        ).toEqual([]);
        await page.screenshot({
          path: `${ARTIFACTS}/threeds-challenge-${label.replaceAll(' ', '-')}.png`,
          fullPage: true,
        });
        if ('otp' in action) {
          await otp.fill(action.otp);
          await page.getByRole('button', { name: 'Submit' }).click();
        } else {
          await page.getByRole('button', { name: 'Cancel' }).click();
        }
        await page.waitForURL(`${back}?PayID=${created.payId}`);
        expect(cspViolations).toEqual([]);
      } finally {
        await context.close();
      }
      const final = await details(t, merchant, created.payId);
      expect(final).toMatchObject({ status, responseCode, threeDS: { transStatus } });
    },
  );

  it.each([
    ['with a method URL whose ACS calls back', 'main', testPan('40000000', '1000'), 'Y'],
    ['with a method URL whose ACS never calls back (10 s wait)', 'silent', testPan('51000020', '1000'), 'N'],
    ['without a method URL (2.1.0 range)', 'main', testPan('40000001', '1000'), 'U'],
  ] as const)(
    'the 3DS Method %s sends threeDSCompInd %s',
    async (_label, which, pan, compInd) => {
      const kassa = which === 'main' ? t : silent;
      const m = which === 'main' ? merchant : silentMerchant;
      const created = await create(kassa, m, pan, {
        challengePreference: 'NO_PREFERENCE',
        browserAuthentication: 'REDIRECT',
      });
      const { context, page, cspViolations } = await openPage();
      const started = Date.now();
      try {
        await page.goto(created._links.redirect.href);
        await page.waitForURL(`${URLS.return}?PayID=${created.payId}`, { timeout: 20_000 });
        expect(cspViolations).toEqual([]);
      } finally {
        await context.close();
      }
      const waited = Date.now() - started;
      if (compInd === 'N') expect(waited).toBeGreaterThanOrEqual(10_000);
      else expect(waited).toBeLessThan(10_000);
      const auth = await authenticationResponseOf(kassa.database.db.kysely, created.payId);
      expect(auth?.threeDSCompInd).toBe(compInd);
      const ranAt = kassa.kassa.services.threeDSSimulator?.methodRanAt(uuidFromPayId(created.payId));
      expect(ranAt !== undefined).toBe(compInd !== 'U');
      expect(await details(kassa, m, created.payId)).toMatchObject({ status: 'OK', threeDS: { transStatus: 'Y' } });
    },
    30_000,
  );

  it('a challenge after the 3DS Method: method page, ACS challenge page, shop', async () => {
    const created = await create(t, merchant, testPan('51000010', '1006'), {
      challengePreference: 'NO_PREFERENCE',
      browserAuthentication: 'REDIRECT',
    });
    const { context, page } = await openPage();
    try {
      await page.goto(created._links.redirect.href);
      await page.getByLabel('One-time code').fill('1234');
      await page.screenshot({ path: `${ARTIFACTS}/threeds-challenge-after-method.png`, fullPage: true });
      await page.getByRole('button', { name: 'Submit' }).click();
      await page.waitForURL(`${URLS.return}?PayID=${created.payId}`);
    } finally {
      await context.close();
    }
    const auth = await authenticationResponseOf(t.database.db.kysely, created.payId);
    expect(auth).toMatchObject({ transStatus: 'C', threeDSCompInd: 'Y', acsChallengeMandated: true });
    expect(await details(t, merchant, created.payId)).toMatchObject({
      status: 'OK',
      threeDS: { transStatus: 'Y', eci: '02' },
    });
  });
});
