import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (never `npx playwright install`); browser tests are skipped without it. */
export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

/** A headless Chromium as every browser test launches it (no sandbox in containers, no background traffic). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * Runs `run` on a new page of a fresh context (self-signed certificates accepted, `en-GB`), handing it the console
 * messages that match `watch` as they come (CSP violations, refused frames); a full-page screenshot goes to
 * `test-artifacts/<name>-failed.png` when `run` throws. The context is closed either way.
 */
export async function inChromiumPage(
  browser: Browser,
  name: string,
  watch: RegExp,
  run: (page: Page, messages: string[]) => Promise<void>,
): Promise<void> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-GB' });
  const page = await context.newPage();
  const messages: string[] = [];
  page.on('console', (m) => {
    if (watch.test(m.text())) messages.push(m.text());
  });
  try {
    await run(page, messages);
  } catch (error) {
    await page.screenshot({ path: `test-artifacts/${name}-failed.png`, fullPage: true }).catch(() => {});
    throw error;
  } finally {
    await context.close();
  }
}
