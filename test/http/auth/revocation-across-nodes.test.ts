import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { directPaymentBody } from '../../../bench/workload.js';
import { buildApp, type Kassa } from '../../../src/app.js';
import { loadConfig } from '../../../src/config/config.js';
import { createDb } from '../../../src/storage/create-db.js';
import { DIALECTS } from '../../helpers/dialects.js';
import { freePort, startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

/**
 * Credentials are cached in memory on every node (issue 12), yet revocation is effective at once everywhere: node B
 * — a second Kassa over the same database, with connections of its own — has served a key from its cache; node A
 * revokes it; B's very next request with that key is refused, with Basic and with an access token alike.
 */
describe.each(DIALECTS)('revocation across nodes with cached credentials (%s)', (dialect) => {
  let a: TestKassa;
  let b: Kassa;
  let bUrl: string;
  let dataDir: string;
  let dispatcher: Agent;

  beforeAll(async () => {
    a = await startTestKassa(dialect);
    dispatcher = new Agent({ connect: { ca: a.ca } });
    const database = a.database;
    const db =
      dialect === 'sqlite'
        ? createDb({ dialect: 'sqlite', file: database.file ?? '' })
        : createDb({ dialect: 'postgres', url: database.url, poolSize: 3 });
    dataDir = mkdtempSync(join(tmpdir(), 'kassa-node-b-'));
    const port = await freePort();
    const config = loadConfig({
      KASSA_HOST: '127.0.0.1',
      KASSA_PORT: String(port),
      KASSA_DATA_DIR: dataDir,
      KASSA_TLS_CERT: inject('tlsCertFile'),
      KASSA_TLS_KEY: inject('tlsKeyFile'),
      KASSA_TOKEN_SECRET: 'test-token-secret-test-token-secret-0123456789',
      KASSA_DATA_KEY: 'test-data-key-test-data-key-test-data-key-0123',
      KASSA_PUBLIC_URL: `https://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
      KASSA_MAX_EVENT_LOOP_DELAY: '0',
    });
    b = await buildApp(config, { db });
    await b.app.listen({ host: '127.0.0.1', port });
    bUrl = config.publicUrl;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dispatcher?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const onB = async (authorization: string) =>
    (await fetch(`${bUrl}/api/v1/payments/getByTransId/none`, { headers: { authorization }, dispatcher })).status;
  const basic = (merchantId: string, apiKey: string) =>
    `Basic ${Buffer.from(`${merchantId}:${apiKey}`).toString('base64')}`;

  it('a key revoked on node A fails on the very next request on node B; the merchant’s other key keeps working', async () => {
    const m = await a.createMerchant();
    const second = await a.kassa.services.merchants.rotateApiKey(m.merchantId);
    const tokenAnswer = await fetch(`${bUrl}/authorization/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: m.merchantId, client_secret: m.apiKey }),
      dispatcher,
    });
    const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };

    // B serves the key (twice: the second answer comes from its cache).
    for (let i = 0; i < 2; i++) {
      expect(await onB(basic(m.merchantId, m.apiKey))).toBe(404); // authenticated: no such payment
      expect(await onB(`Bearer ${token}`)).toBe(404);
    }

    await a.kassa.services.merchants.revokeApiKey(m.merchantId, m.keyId);

    expect(await onB(basic(m.merchantId, m.apiKey))).toBe(401);
    expect(await onB(`Bearer ${token}`)).toBe(401);
    expect(await onB(basic(m.merchantId, second.apiKey))).toBe(404);
  });

  it.each([
    ['getByPayId', (payment: { payId: string }) => payment.payId],
    ['getByTransId', (payment: { transId: string }) => payment.transId],
  ] as const)(
    'a %s lookup, whose payment SQLite reads with the credentials check, is refused on the very next request too',
    async (route, id) => {
      const m = await a.createMerchant();
      const created = await a.call('POST', '/api/v1/payments', {
        auth: { merchantId: m.merchantId, apiKey: m.apiKey },
        json: JSON.parse(directPaymentBody(`revoked-lookup-${route}`)),
      });
      expect(created.status).toBe(201);
      const lookup = async () =>
        fetch(`${bUrl}/api/v1/payments/${route}/${encodeURIComponent(id(created.body))}`, {
          headers: { authorization: basic(m.merchantId, m.apiKey) },
          dispatcher,
        });
      for (let i = 0; i < 2; i++) expect((await lookup()).status).toBe(200); // the second from B's credential cache

      await a.kassa.services.merchants.revokeApiKey(m.merchantId, m.keyId);

      const refused = await lookup();
      expect(refused.status).toBe(401);
      expect(await refused.text()).not.toContain(created.body.payId);
    },
  );
});
