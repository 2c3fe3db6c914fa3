import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../../helpers/cards.js';
import { DIALECTS } from '../../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

type Creds = { merchantId: string; apiKey: string; keyId: string };

describe.each(DIALECTS)('authentication (%s)', (dialect) => {
  let t: TestKassa;
  let m: Creds;

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    m = await t.createMerchant();
  });
  afterAll(async () => t?.close());

  const token = async (creds: { merchantId: string; apiKey: string }) =>
    t.call('POST', '/authorization/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: creds.merchantId, client_secret: creds.apiKey },
    });

  it('HTTP Basic with merchantId:apiKey is accepted (spec §5.1)', async () => {
    const res = await t.call('GET', '/api/v1/payments/getByTransId/none', { auth: m });
    expect(res.status).toBe(404); // authenticated: the payment simply does not exist
  });

  // Security: a wrong key and an unknown merchant are indistinguishable.
  it('a wrong key, an unknown merchant and no credentials all answer the same 401 problem', async () => {
    const answers = await Promise.all([
      t.call('GET', '/api/v1/payments/getByTransId/x', {
        auth: { merchantId: m.merchantId, apiKey: 'kassa_sk_wrong' },
      }),
      t.call('GET', '/api/v1/payments/getByTransId/x', { auth: { merchantId: 'nobody', apiKey: m.apiKey } }),
      t.call('GET', '/api/v1/payments/getByTransId/x'),
      t.call('GET', '/api/v1/payments/getByTransId/x', { auth: { token: 'not.a.jwt' } }),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.headers.get('www-authenticate')).toContain('Basic');
      expect({ ...res.body, requestId: undefined }).toEqual({ ...answers[0]?.body, requestId: undefined });
    }
  });

  it('client credentials in the form give a Bearer JWT that authenticates API calls (spec §4.1, §5.2)', async () => {
    const res = await token(m);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(res.body.access_token.split('.')).toHaveLength(3);
    const call = await t.call('POST', '/api/v1/payments', {
      auth: { token: res.body.access_token },
      json: directPayment(testPan('40000000', '1000')),
    });
    expect(call.status).toBe(201);
    expect(call.body.merchantId).toBe(m.merchantId);
  });

  it('client credentials in a Basic header are accepted too (RFC 6749 §2.3.1)', async () => {
    const res = await t.call('POST', '/authorization/oauth/token', {
      auth: m,
      form: { grant_type: 'client_credentials' },
    });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
  });

  it.each([
    ['a wrong secret', { grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' }, 401, 'invalid_client'],
    ['no client credentials', { grant_type: 'client_credentials' }, 401, 'invalid_client'],
    [
      'another grant type',
      { grant_type: 'password', client_id: 'x', client_secret: 'y' },
      400,
      'unsupported_grant_type',
    ],
    ['no grant type', { client_id: 'x', client_secret: 'y' }, 400, 'invalid_request'],
  ])('%s answers %i %s (RFC 6749 §5.2)', async (_name, form, status, error) => {
    const res = await t.call('POST', '/authorization/oauth/token', { form: form as Record<string, string> });
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(error);
    expect(res.headers.get('cache-control')).toBe('no-store');
    if (error === 'invalid_client') expect(res.headers.get('www-authenticate')).toContain('Basic');
  });

  it('a JSON body at the token endpoint is an invalid_request', async () => {
    const res = await t.call('POST', '/authorization/oauth/token', { json: { grant_type: 'client_credentials' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  // Security: revoking a key revokes its access tokens at once.
  it('tokens of a revoked key stop working, while another key of the merchant keeps working', async () => {
    const merchant = await t.createMerchant();
    const second = await t.kassa.services.merchants.rotateApiKey(merchant.merchantId);
    const tok = (await token(merchant)).body.access_token;
    const before = await t.call('GET', '/api/v1/payments/getByTransId/x', { auth: { token: tok } });
    expect(before.status).toBe(404);
    await t.kassa.services.merchants.revokeApiKey(merchant.merchantId, merchant.keyId);
    expect((await t.call('GET', '/api/v1/payments/getByTransId/x', { auth: { token: tok } })).status).toBe(401);
    expect((await t.call('GET', '/api/v1/payments/getByTransId/x', { auth: merchant })).status).toBe(401);
    expect((await token(merchant)).status).toBe(401);
    const other = { merchantId: merchant.merchantId, apiKey: second.apiKey };
    expect((await t.call('GET', '/api/v1/payments/getByTransId/x', { auth: other })).status).toBe(404);
  });

  it('a token signed with another secret is refused', async () => {
    const { AccessTokens } = await import('../../../src/http/auth/access-tokens.js');
    const forged = await new AccessTokens('another-secret-another-secret-another-secret', 3600, () => new Date()).issue(
      {
        merchantId: m.merchantId,
        keyId: m.keyId,
      },
    );
    expect((await t.call('GET', '/api/v1/payments/getByTransId/x', { auth: { token: forged } })).status).toBe(401);
  });

  it('an expired token is refused', async () => {
    const { AccessTokens } = await import('../../../src/http/auth/access-tokens.js');
    const old = await new AccessTokens(
      'test-token-secret-test-token-secret-0123456789',
      60,
      () => new Date(Date.now() - 3_600_000),
    ).issue({ merchantId: m.merchantId, keyId: m.keyId });
    expect((await t.call('GET', '/api/v1/payments/getByTransId/x', { auth: { token: old } })).status).toBe(401);
  });
});

describe('token endpoint rate limit', () => {
  let t: TestKassa;
  beforeAll(async () => {
    t = await startTestKassa('sqlite');
  });
  afterAll(async () => t?.close());

  // Security: password guessing at the token endpoint is throttled per client.
  it('the 31st request for one client within a minute is answered 429 with retry-after', async () => {
    const form = { grant_type: 'client_credentials', client_id: 'victim', client_secret: 'guess' };
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await t.call('POST', '/authorization/oauth/token', { form })).status);
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(statuses[30]).toBe(429);
    const limited = await t.call('POST', '/authorization/oauth/token', { form });
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.body.error).toBe('too_many_requests');
  });
});
