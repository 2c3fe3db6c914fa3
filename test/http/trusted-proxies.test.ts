import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type Kassa } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { type FreshDatabase, freshDatabase } from '../helpers/dialects.js';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/**
 * KASSA_TRUSTED_PROXIES behind KASSA_TLS=proxy: the client address is the right-most X-Forwarded-For entry not added
 * by a trusted hop, so a client writing its own X-Forwarded-For cannot choose the address per-IP limits count.
 */
describe('KASSA_TRUSTED_PROXIES', () => {
  let kassa: Kassa;
  let database: FreshDatabase;
  let merchantId: string;
  let apiKey: string;

  beforeAll(async () => {
    database = await freshDatabase('sqlite');
    const config = loadConfig({
      KASSA_TLS: 'proxy',
      KASSA_TRUSTED_PROXIES: '1',
      KASSA_DATA_DIR: mkdtempSync(join(tmpdir(), 'kassa-proxies-')),
      KASSA_PUBLIC_URL: 'https://pay.example.com',
      LOG_LEVEL: 'silent',
    });
    kassa = await buildApp(config, { db: database.db });
    const created = await kassa.services.merchants.createMerchant({
      merchantId: 'shop',
      country: 'DK',
      currency: 'DKK',
      sandbox: true,
    });
    merchantId = created.merchant.merchantId;
    apiKey = created.apiKey;
  });
  afterAll(async () => {
    await kassa?.app.close();
    await database?.drop();
  });

  const get = (forwardedFor: string, secret: string) =>
    kassa.app.inject({
      method: 'GET',
      url: '/api/v1/payments/getByTransId/x',
      headers: {
        'x-forwarded-proto': 'https',
        'x-forwarded-for': forwardedFor,
        authorization: basic(merchantId, secret),
      },
    });

  // Security: rotating a forged left-most X-Forwarded-For entry does not escape the per-IP failure limit.
  it('with 1 trusted hop, a client-sent "X-Forwarded-For: <forged>, <real>" is counted as <real>', async () => {
    for (let i = 0; i < 10; i++) {
      expect((await get(`1.2.3.${i}, 203.0.113.7`, 'wrong-secret')).statusCode).toBe(401);
    }
    // The same real address is now limited, whatever it claims to be …
    const limited = await get('5.6.7.8, 203.0.113.7', apiKey);
    expect(limited.statusCode).toBe(429);
    // … while another real address behind the same proxy is not.
    expect((await get('1.2.3.0, 198.51.100.9', 'wrong-secret')).statusCode).toBe(401);
  });

  it('KASSA_TRUSTED_PROXIES without KASSA_TLS=proxy is refused at start-up', () => {
    expect(() => loadConfig({ KASSA_TRUSTED_PROXIES: '1' })).toThrow(/KASSA_TRUSTED_PROXIES/);
  });

  it('with 0 trusted hops (the default) X-Forwarded-For is ignored: the peer is the client', async () => {
    const plain = await buildApp(
      loadConfig({
        KASSA_TLS: 'proxy',
        KASSA_DATA_DIR: mkdtempSync(join(tmpdir(), 'kassa-proxies-')),
        KASSA_PUBLIC_URL: 'https://pay.example.com',
        LOG_LEVEL: 'silent',
      }),
      { db: database.db },
    );
    let seen: string | undefined;
    plain.app.addHook('onResponse', async (request) => {
      seen = request.ip;
    });
    await plain.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-forwarded-for': '1.2.3.4, 5.6.7.8' } });
    await plain.app.close();
    expect(seen).toBe('127.0.0.1');
  });
});
