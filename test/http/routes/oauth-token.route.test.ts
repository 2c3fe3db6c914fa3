import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KassaError } from '../../../src/domain/errors/error-catalogue.js';
import type { MerchantService } from '../../../src/domain/merchants/merchant-service.js';
import type { AccessTokens } from '../../../src/http/auth/access-tokens.js';
import type { AuthFailureLimit } from '../../../src/http/auth/failure-limit.js';
import { oauthTokenRoute } from '../../../src/http/routes/oauth-token.route.js';
import { DIALECTS } from '../../helpers/dialects.js';
import { type KassaBehindProxy, startKassaBehindProxy } from '../../helpers/kassa-behind-proxy.js';
import type { TcpProxy } from '../../helpers/tcp-proxy.js';
import type { CallResult, TestKassa } from '../../helpers/test-kassa.js';

const tokenRequest = (t: TestKassa, m: { merchantId: string }, secret: string) =>
  t.call('POST', '/authorization/oauth/token', {
    form: { grant_type: 'client_credentials', client_id: m.merchantId, client_secret: secret },
  });

/**
 * A database outage at the token endpoint is a 503 the client retries, in RFC 6749 form: never a 400, which a client
 * takes as final (it would stop trying, or page someone about its credentials).
 */
function expectTemporarilyUnavailable(res: CallResult) {
  expect(res.status).toBe(503);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(res.headers.get('retry-after')).toBe('5');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
}

describe.skipIf(!DIALECTS.includes('postgres'))('token endpoint while PostgreSQL is unreachable', () => {
  let k: KassaBehindProxy;
  let t: TestKassa;
  let proxy: TcpProxy;
  let m: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    k = await startKassaBehindProxy();
    ({ t, proxy } = k);
    m = await t.createMerchant();
  });
  afterAll(async () => {
    await k?.close();
  });

  it('answers 503 temporarily_unavailable with Retry-After, and issues tokens again once it is back', async () => {
    expect((await tokenRequest(t, m, m.apiKey)).status).toBe(200);
    await proxy.refuse();
    // A fresh client: its credentials are not cached, so the check must reach the database.
    expectTemporarilyUnavailable(await tokenRequest(t, { merchantId: 'nobody_cached' }, 'whatever'));
    await proxy.accept();
    expect((await tokenRequest(t, m, m.apiKey)).status).toBe(200);
  });
});

/** The token route alone, over a merchant service whose credentials check throws `error`. */
async function tokenRouteFailingWith(error: Error) {
  const app = Fastify({ logger: false });
  await app.register(formbody);
  await app.register(rateLimit, { global: false });
  const merchants = {
    authenticateApiKey: async () => {
      throw error;
    },
  } as unknown as MerchantService;
  const failures = {
    blocked: async () => false,
    failed: async () => {},
    retryAfterSeconds: () => 60,
  } as unknown as AuthFailureLimit;
  await app.register(oauthTokenRoute, { merchants, tokens: {} as AccessTokens, failures, requestsPerMinute: 60 });
  return app;
}

const form = (body: string) => ({
  method: 'POST' as const,
  url: '/authorization/oauth/token',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: body,
});

describe('token endpoint error answers', () => {
  it.each([
    ['SQLite disk full', new SQLite.SqliteError('database or disk is full', 'SQLITE_FULL')],
    ['SQLite I/O error', new SQLite.SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE')],
    ['a refused PostgreSQL connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['DATABASE_UNAVAILABLE', new KassaError('DATABASE_UNAVAILABLE')],
  ])('%s is 503 temporarily_unavailable with Retry-After and no-store', async (_name, error) => {
    const app = await tokenRouteFailingWith(error);
    const res = await app.inject(form('grant_type=client_credentials&client_id=m1&client_secret=s'));
    await app.close();
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
  });

  it('a fault of Kassa is 500 server_error, not a 400 the client would take as final', async () => {
    const app = await tokenRouteFailingWith(new TypeError('x is undefined'));
    const res = await app.inject(form('grant_type=client_credentials&client_id=m1&client_secret=s'));
    await app.close();
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ error: 'server_error' });
  });

  it('a parameter given twice is still 400 invalid_request', async () => {
    const app = await tokenRouteFailingWith(new Error('not reached'));
    const res = await app.inject(form('grant_type=client_credentials&grant_type=client_credentials'));
    await app.close();
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('grant_type') });
  });
});
