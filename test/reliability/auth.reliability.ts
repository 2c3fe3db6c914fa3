import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokens } from '../../src/http/auth/access-tokens.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { type CallOptions, startTestKassa, type TestKassa } from '../helpers/test-kassa.js';
import { recordSummary } from './summary.js';

const TOKEN_SECRET = 'test-token-secret-test-token-secret-0123456789';
const ADMIN_TOKEN = 'reliability-admin-token-reliability-admin-token';

type Credential = { name: string; options: Pick<CallOptions, 'auth' | 'headers'> };

/**
 * Auth (issue 14): wrong, revoked, expired and forged credentials on every authenticated route are refused with 401,
 * and another merchant's valid credentials find none of this merchant's resources (404, as for a missing one). A
 * refused request writes nothing.
 */
describe('auth', () => {
  let t: TestKassa;
  const routes: { method: string; url: string }[] = [];
  let owner: { merchantId: string; apiKey: string; keyId: string };
  let other: { merchantId: string; apiKey: string; keyId: string };
  let revoked: { merchantId: string; apiKey: string };
  let revokedToken: string;
  let ids: Record<string, string>;

  beforeAll(async () => {
    t = await startTestKassa(
      DIALECTS.includes('postgres') ? 'postgres' : 'sqlite',
      {
        onRoute: (route) => {
          for (const method of [route.method].flat()) {
            if (method !== 'HEAD' && method !== 'OPTIONS') routes.push({ method, url: route.url });
          }
        },
      },
      { KASSA_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'fatal' },
    );
    owner = await t.createMerchant();
    other = await t.createMerchant();
    // A second key of the owner, revoked after a token was issued for it.
    const second = await t.kassa.services.merchants.rotateApiKey(owner.merchantId);
    const token = await t.call('POST', '/authorization/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: owner.merchantId, client_secret: second.apiKey },
    });
    revokedToken = token.body.access_token;
    await t.kassa.services.merchants.revokeApiKey(owner.merchantId, second.keyId);
    revoked = { merchantId: owner.merchantId, apiKey: second.apiKey };

    const payment = await t.call('POST', '/api/v1/payments', {
      auth: owner,
      json: directPayment(testPan('40000000', '1000'), { captureMethod: { type: 'MANUAL' } }),
    });
    const session = await t.call('POST', '/api/v1/payments/sessions', {
      auth: owner,
      json: {
        transId: 'auth-session',
        amount: { value: 1_000, currency: 'DKK' },
        urls: { return: 'https://shop.example/r' },
      },
    });
    const notifications = await t.call('GET', `/api/v1/notifications?payId=${payment.body.payId}`, { auth: owner });
    ids = {
      payId: payment.body.payId,
      payID: payment.body.payId,
      transID: payment.body.transId,
      sessionId: session.body.sessionId,
      id: notifications.body.notifications?.[0]?.id ?? '0'.repeat(32),
      merchantId: owner.merchantId,
      pseudoCardNumber: '0000000000000000',
    };
  });

  afterAll(async () => {
    await t?.close();
  });

  const basic = (merchantId: string, apiKey: string) => ({ auth: { merchantId, apiKey } });

  it('every route refuses missing, wrong, revoked, expired and forged credentials, and other merchants see nothing', async () => {
    const expiredToken = await new AccessTokens(TOKEN_SECRET, 60, () => new Date(Date.now() - 2 * 3600_000)).issue({
      merchantId: owner.merchantId,
      keyId: owner.keyId,
    });
    const forgedToken = await new AccessTokens(
      'another-secret-another-secret-another-secret',
      3600,
      () => new Date(),
    ).issue({
      merchantId: owner.merchantId,
      keyId: owner.keyId,
    });
    const refusals: Credential[] = [
      { name: 'none', options: {} },
      { name: 'wrong key', options: basic(owner.merchantId, 'kassa_sk_wrong') },
      { name: 'unknown merchant', options: basic('nobody', owner.apiKey) },
      { name: 'revoked key', options: basic(revoked.merchantId, revoked.apiKey) },
      { name: 'token of a revoked key', options: { auth: { token: revokedToken } } },
      { name: 'expired token', options: { auth: { token: expiredToken } } },
      { name: 'token signed with another secret', options: { auth: { token: forgedToken } } },
      { name: 'garbage bearer', options: { auth: { token: 'not.a.jwt' } } },
      { name: 'malformed basic', options: { headers: { authorization: 'Basic %%%' } } },
      { name: 'admin token as merchant', options: { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } } },
    ];
    const merchantRoutes = routes.filter((r) => /^\/api\/v\d\//.test(r.url));
    const adminRoutes = routes.filter((r) => r.url.startsWith('/admin/'));
    expect(merchantRoutes.length).toBeGreaterThan(10);

    // Valid requests but for the credentials (schema validation runs before authentication in Fastify).
    const path = (url: string) =>
      url.replace(/:([A-Za-z]+)/g, (_, name: string) => ids[name] ?? 'x') +
      (url.endsWith('/notifications') ? `?payId=${ids.payId}` : '');
    const body = (url: string) =>
      /captures|refunds|reversals/.test(url)
        ? { transId: `op-${Math.random().toString(36).slice(2)}`, amount: { value: 100, currency: 'DKK' } }
        : url.endsWith('/sessions')
          ? {
              transId: `s-${Math.random().toString(36).slice(2)}`,
              amount: { value: 100, currency: 'DKK' },
              urls: { return: 'https://shop.example/r' },
            }
          : directPayment(testPan('40000000', '1000'));
    const payments = async () =>
      (await t.database.db.kysely.selectFrom('payment').select('pay_id').execute()).length +
      (await t.database.db.kysely.selectFrom('payment_operation').select('pay_id').execute()).length;
    const before = await payments();

    const failures: string[] = [];
    let tried = 0;
    for (const route of merchantRoutes) {
      for (const credential of refusals) {
        tried++;
        const res = await t.call(route.method, path(route.url), {
          ...credential.options,
          json: route.method === 'GET' || route.method === 'DELETE' ? undefined : body(route.url),
        });
        // Past 10 failed Basic authentications per merchant id and address a minute, the refusal is 429 RATE_LIMITED
        // (issue 9): still a refusal, in problem+json.
        const limited = res.status === 429 && res.body?.code === 'RATE_LIMITED';
        if (res.status !== 401 && !limited) {
          failures.push(`${route.method} ${route.url} with ${credential.name}: ${res.status}`);
        } else if (!res.headers.get('www-authenticate') && !res.headers.get('content-type')?.includes('problem+json')) {
          failures.push(`${route.method} ${route.url} with ${credential.name}: 401 without problem+json`);
        }
      }
      // Another merchant's valid credentials: the resource is not found (same answer as a missing one).
      if (/:/.test(route.url)) {
        tried++;
        const res = await t.call(route.method, path(route.url), {
          ...basic(other.merchantId, other.apiKey),
          json: route.method === 'GET' || route.method === 'DELETE' ? undefined : body(route.url),
        });
        if (res.status !== 404)
          failures.push(`${route.method} ${route.url} cross-merchant: ${res.status} ${res.text.slice(0, 120)}`);
      }
    }
    for (const route of adminRoutes) {
      for (const credential of [
        { name: 'none', options: {} },
        { name: 'merchant key', options: basic(owner.merchantId, owner.apiKey) },
        { name: 'wrong admin token', options: { headers: { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}x` } } },
      ]) {
        tried++;
        const res = await t.call(route.method, path(route.url), {
          ...credential.options,
          json: route.method === 'GET' ? undefined : { enabled: true, rules: [] },
        });
        if (res.status !== 401) failures.push(`${route.method} ${route.url} with ${credential.name}: ${res.status}`);
      }
    }
    const dataLost = (await payments()) - before;
    recordSummary({
      area: 'auth',
      tried,
      failures: failures.length,
      dataLost,
      note: `${merchantRoutes.length} merchant routes, ${adminRoutes.length} admin routes, ${refusals.length} kinds of bad credentials and cross-merchant`,
    });
    expect(failures).toEqual([]);
    expect(dataLost).toBe(0);
  });
});
