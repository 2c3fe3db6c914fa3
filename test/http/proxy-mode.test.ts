import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type Kassa } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { type FreshDatabase, freshDatabase } from '../helpers/dialects.js';

/** KASSA_TLS=proxy (DESIGN.md §3): plain HTTP behind a TLS-terminating proxy, which must say the client used HTTPS. */
describe('TLS proxy mode', () => {
  let kassa: Kassa;
  let database: FreshDatabase;

  beforeAll(async () => {
    database = await freshDatabase('sqlite');
    const config = loadConfig({
      KASSA_TLS: 'proxy',
      KASSA_DATA_DIR: mkdtempSync(join(tmpdir(), 'kassa-proxy-')),
      KASSA_PUBLIC_URL: 'https://pay.example.com',
      LOG_LEVEL: 'silent',
    });
    kassa = await buildApp(config, { db: database.db });
  });
  afterAll(async () => {
    await kassa?.app.close();
    await database?.drop();
  });

  // Security: a request that reached the proxy over plain HTTP is refused, not served.
  it('a request without X-Forwarded-Proto: https is refused with 403 HTTPS_REQUIRED', async () => {
    for (const headers of [{}, { 'x-forwarded-proto': 'http' }]) {
      const res = await kassa.app.inject({ method: 'GET', url: '/api/v1/payments/getByTransId/x', headers });
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().code).toBe('HTTPS_REQUIRED');
    }
  });

  it('a request the proxy received over HTTPS is served', async () => {
    const res = await kassa.app.inject({
      method: 'GET',
      url: '/api/v1/payments/getByTransId/x',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(res.statusCode).toBe(401); // served: it reached authentication
  });

  it('the proxy may probe /healthz over plain HTTP', async () => {
    const res = await kassa.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
  });

  it('the server itself speaks plain HTTP (no certificate configured)', () => {
    expect(kassa.secrets.tls).toBeUndefined();
  });
});
