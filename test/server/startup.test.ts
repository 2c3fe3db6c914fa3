import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { loadRuntimeSecrets } from '../../src/config/data-dir.js';
import { ensureDemoMerchant } from '../../src/server/demo.js';
import { buildServices, openDatabase } from '../../src/services.js';
import { haveChromium, launchChromium } from '../helpers/chromium.js';
import { kassaCliResult } from '../helpers/cli.js';
import { type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'kassa-startup-'));

describe('start-up: the database', () => {
  // A closed port on loopback: nothing listens on port 1.
  const UNREACHABLE = 'postgres://kassa:s3cret-pa55word@127.0.0.1:1/kassa';

  it('a database Kassa cannot reach is named by DATABASE_URL, its password masked', async () => {
    const config = loadConfig({ DATABASE_URL: UNREACHABLE, KASSA_DATA_DIR: tempDir(), LOG_LEVEL: 'silent' });
    const error = await buildApp(config).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toContain('DATABASE_URL=postgres://kassa:***@127.0.0.1:1/kassa');
    expect(error?.message).toContain('ECONNREFUSED');
    expect(error?.message).not.toContain('s3cret-pa55word');
  });

  it('`kassa serve` says so on stderr and exits 1, never printing the password', async () => {
    const r = await kassaCliResult(['serve'], { DATABASE_URL: UNREACHABLE, KASSA_DATA_DIR: tempDir() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/could not start: cannot open the database at DATABASE_URL=postgres:\/\/kassa:\*\*\*@/);
    expect(r.stdout + r.stderr).not.toContain('s3cret-pa55word');
  }, 60_000);
});

describe('start-up: the demo merchant', () => {
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshDatabase('sqlite');
  });
  afterAll(async () => database?.drop());

  const servicesOf = async (env: Record<string, string>) => {
    const config = loadConfig({ KASSA_DATA_DIR: tempDir(), LOG_LEVEL: 'silent', ...env });
    const db = await openDatabase(config, database.db);
    return { config, services: buildServices(config, db, await loadRuntimeSecrets(config)) };
  };

  it('KASSA_DEMO=off creates no demo merchant and prints nothing', async () => {
    const { config, services } = await servicesOf({ KASSA_DEMO: 'off' });
    expect(await ensureDemoMerchant(services, config)).toBeUndefined();
    expect(await services.merchants.hasMerchants()).toBe(false);
  });

  it("a production merchant's API key is never printed: with one in the database no demo is created", async () => {
    const { config, services } = await servicesOf({});
    const production = await services.merchants.createMerchant({
      merchantId: 'prod',
      country: 'DK',
      currency: 'DKK',
      sandbox: false,
    });
    expect(await ensureDemoMerchant(services, config)).toBeUndefined();
    await expect(services.merchants.getMerchant('demo')).rejects.toThrow();
    expect(production.apiKey).toEqual(expect.any(String));
  });

  it('by default the first start creates the sandbox demo and shows its key once', async () => {
    const fresh = await freshDatabase('sqlite');
    try {
      const config = loadConfig({ KASSA_DATA_DIR: tempDir(), LOG_LEVEL: 'silent' });
      const services = buildServices(config, await openDatabase(config, fresh.db), await loadRuntimeSecrets(config));
      expect(await ensureDemoMerchant(services, config)).toMatch(/apiKey: +\S+/);
      expect((await services.merchants.getMerchant('demo')).sandbox).toBe(true);
      expect(await ensureDemoMerchant(services, config)).toBeUndefined();
    } finally {
      await fresh.drop();
    }
  });
});

describe('/docs', () => {
  let t: TestKassa;
  beforeAll(async () => {
    t = await startTestKassa('sqlite');
  });
  afterAll(async () => t?.close());

  // Security: the API docs page runs only its own scripts and cannot be framed (clickjacking).
  it('answers with a strict Content-Security-Policy', async () => {
    for (const path of ['/docs/static/index.html', '/docs/static/swagger-initializer.js']) {
      const res = await t.call('GET', path);
      expect(res.status, path).toBe(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/default-src 'self'/);
      expect(csp).toMatch(/script-src 'self'/);
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(csp).toMatch(/object-src 'none'/);
      expect(csp).not.toMatch(/https:|validator\.swagger\.io|'unsafe-eval'/);
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    }
  });

  it('its page loads only scripts and styles from Kassa itself', async () => {
    const html = (await t.call('GET', '/docs/static/index.html')).text;
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(sources.length).toBeGreaterThan(0);
    for (const s of sources) expect(s).not.toMatch(/^(https?:)?\/\//);
    expect(html).not.toMatch(/<script>(?!\s*<\/script>)/); // no inline script the CSP would block
  });

  it.skipIf(!haveChromium)(
    'the page still works under its CSP: Chromium renders the operations, no violation',
    async () => {
      const browser = await launchChromium();
      try {
        const context = await browser.newContext({ ignoreHTTPSErrors: true });
        const page = await context.newPage();
        const violations: string[] = [];
        page.on('console', (message) => {
          if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
        });
        await page.goto(`${t.url}/docs`);
        await page.locator('.opblock-summary-path').first().waitFor({ timeout: 30_000 });
        expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
        expect(violations).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
