import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

const ADMIN_TOKEN = 'admin-token-for-tests-admin-token-for-tests-0123';
const admin = { token: ADMIN_TOKEN };
const VISA_COMMERCIAL = { brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 180 };
const ANY_NON_EEA = { brand: '*', reason: 'NON_EEA_CARD', percentageBps: 300, fixed: 100, max: 5000 };

describe.each(DIALECTS)('admin surcharge API /admin/v1/merchants/{merchantId}/surcharge (%s)', (dialect) => {
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };
  const path = (id: string, rest = '') => `/admin/v1/merchants/${id}/surcharge${rest}`;

  beforeAll(async () => {
    t = await startTestKassa(dialect, {}, { KASSA_ADMIN_TOKEN: ADMIN_TOKEN });
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK' });
  });
  afterAll(async () => t?.close());

  it('a merchant never configured answers disabled with no rules', async () => {
    const res = await t.call('GET', path(merchant.merchantId), { auth: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ merchantId: merchant.merchantId, enabled: false, rules: [] });
  });

  it('PUT enables with the rules, DELETE disables keeping them, and the audit log shows who, when, before and after', async () => {
    const m = await t.createMerchant({ country: 'FI', currency: 'EUR' });
    const put = await t.call('PUT', path(m.merchantId), {
      auth: admin,
      json: { enabled: true, rules: [VISA_COMMERCIAL, ANY_NON_EEA] },
      headers: { 'x-kassa-actor': 'alice@support' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ merchantId: m.merchantId, enabled: true, rules: [VISA_COMMERCIAL, ANY_NON_EEA] });
    expect((await t.call('GET', path(m.merchantId), { auth: admin })).body).toEqual(put.body);

    const del = await t.call('DELETE', path(m.merchantId), { auth: admin });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ merchantId: m.merchantId, enabled: false, rules: [VISA_COMMERCIAL, ANY_NON_EEA] });

    const audit = await t.call('GET', path(m.merchantId, '/audit'), { auth: admin });
    expect(audit.status).toBe(200);
    expect(audit.body.merchantId).toBe(m.merchantId);
    expect(audit.body.entries).toEqual([
      {
        seq: 1,
        action: 'ENABLE',
        actor: 'alice@support',
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        before: { enabled: false, rules: [] },
        after: { enabled: true, rules: [VISA_COMMERCIAL, ANY_NON_EEA] },
      },
      {
        seq: 2,
        action: 'DISABLE',
        actor: 'admin-api',
        at: expect.any(String),
        before: { enabled: true, rules: [VISA_COMMERCIAL, ANY_NON_EEA] },
        after: { enabled: false, rules: [VISA_COMMERCIAL, ANY_NON_EEA] },
      },
    ]);
    expect(Date.parse(audit.body.entries[1].at)).toBeGreaterThanOrEqual(Date.parse(audit.body.entries[0].at));
  });

  // Security: only the configured admin token opens the admin API; merchant credentials never do.
  it.each<[string, () => Record<string, string>]>([
    ['no authorization header', () => ({})],
    ['a wrong admin token', () => ({ authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}x` })],
    ['the admin token with a suffix', () => ({ authorization: `Bearer ${ADMIN_TOKEN}0` })],
    ['the admin token without the Bearer scheme', () => ({ authorization: ADMIN_TOKEN })],
    [
      'the admin token in Basic',
      () => ({ authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` }),
    ],
    [
      'the merchant API key in Basic',
      () => ({ authorization: `Basic ${Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64')}` }),
    ],
    ['the merchant API key as a Bearer token', () => ({ authorization: `Bearer ${merchant.apiKey}` })],
  ])('%s is refused with 401 UNAUTHORIZED on every admin route, before any lookup', async (_, headers) => {
    for (const [method, p, json] of [
      ['GET', path(merchant.merchantId), undefined],
      ['PUT', path(merchant.merchantId), { enabled: true, rules: [VISA_COMMERCIAL] }],
      ['PUT', path('no-such-merchant'), { nonsense: true }],
      ['DELETE', path(merchant.merchantId), undefined],
      ['GET', path(merchant.merchantId, '/audit'), undefined],
      ['GET', path('no-such-merchant'), undefined],
    ] as const) {
      const res = await t.call(method, p, { headers: headers(), json });
      expect(res.status, `${method} ${p}`).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(res.body).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    }
    expect((await t.call('GET', path(merchant.merchantId), { auth: admin })).body.enabled).toBe(false);
  });

  it('a merchant OAuth access token is not an admin token', async () => {
    const token = await t.call('POST', '/authorization/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: merchant.merchantId, client_secret: merchant.apiKey },
    });
    expect(token.status).toBe(200);
    const res = await t.call('GET', path(merchant.merchantId), { auth: { token: token.body.access_token } });
    expect(res.status).toBe(401);
  });

  it.each([
    ['GET', ''],
    ['PUT', ''],
    ['DELETE', ''],
    ['GET', '/audit'],
  ])('%s %s of an unknown merchant is 404 MERCHANT_NOT_FOUND', async (method, rest) => {
    const res = await t.call(method, path('no-such-merchant', rest), {
      auth: admin,
      json: method === 'PUT' ? { enabled: true, rules: [VISA_COMMERCIAL] } : undefined,
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'MERCHANT_NOT_FOUND' });
  });

  it.each<[string, unknown, string]>([
    ['an unknown brand', { enabled: true, rules: [{ ...VISA_COMMERCIAL, brand: 'AMEX' }] }, 'rules.0.brand'],
    ['an unknown reason', { enabled: true, rules: [{ ...VISA_COMMERCIAL, reason: 'CORPORATE' }] }, 'rules.0.reason'],
    [
      'a percentage as a fraction',
      { enabled: true, rules: [{ ...VISA_COMMERCIAL, percentageBps: 1.8 }] },
      'rules.0.percentageBps',
    ],
    [
      'percentageBps above 10 000',
      { enabled: true, rules: [{ ...VISA_COMMERCIAL, percentageBps: 10001 }] },
      'rules.0.percentageBps',
    ],
    ['a negative fixed fee', { enabled: true, rules: [{ ...ANY_NON_EEA, fixed: -1 }] }, 'rules.0.fixed'],
    ['a cap of 0', { enabled: true, rules: [{ ...ANY_NON_EEA, max: 0 }] }, 'rules.0.max'],
    ['an unknown rule field', { enabled: true, rules: [{ ...VISA_COMMERCIAL, currency: 'DKK' }] }, 'rules.0.currency'],
    [
      'neither percentageBps nor fixed',
      { enabled: true, rules: [{ brand: 'VISA', reason: 'COMMERCIAL_CARD' }] },
      'rules.0.percentageBps',
    ],
    ['two rules for one brand and reason', { enabled: true, rules: [VISA_COMMERCIAL, VISA_COMMERCIAL] }, 'rules.1'],
    ['no rules', { enabled: true, rules: [] }, 'rules'],
    ['enabled false (DELETE disables)', { enabled: false, rules: [VISA_COMMERCIAL] }, 'enabled'],
    ['no enabled field', { rules: [VISA_COMMERCIAL] }, 'enabled'],
  ])('PUT with %s is 400 VALIDATION_FAILED naming %s, and changes nothing', async (_, json, field) => {
    const m = await t.createMerchant();
    const res = await t.call('PUT', path(m.merchantId), { auth: admin, json });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect((await t.call('GET', path(m.merchantId), { auth: admin })).body.enabled).toBe(false);
    expect((await t.call('GET', path(m.merchantId, '/audit'), { auth: admin })).body.entries).toEqual([]);
  });

  it('an x-kassa-actor longer than 100 characters is 400 naming the header', async () => {
    const res = await t.call('DELETE', path(merchant.merchantId), {
      auth: admin,
      headers: { 'x-kassa-actor': 'a'.repeat(101) },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['headers.x-kassa-actor']);
  });

  it('the admin token never appears in the logs', async () => {
    await t.call('GET', path(merchant.merchantId), { auth: admin });
    expect(t.logs()).not.toContain(ADMIN_TOKEN);
  });
});

describe('admin API without KASSA_ADMIN_TOKEN', () => {
  let t: TestKassa;
  beforeAll(async () => {
    t = await startTestKassa('sqlite');
  });
  afterAll(async () => t?.close());

  it.each(['GET', 'PUT', 'DELETE'])('%s answers 404 NOT_FOUND, as if the admin API did not exist', async (method) => {
    const m = await t.createMerchant();
    for (const p of [
      `/admin/v1/merchants/${m.merchantId}/surcharge`,
      `/admin/v1/merchants/${m.merchantId}/surcharge/audit`,
    ]) {
      const res = await t.call(method, p, {
        auth: { token: 'anything-anything-anything-anything' },
        json: method === 'PUT' ? { enabled: true, rules: [VISA_COMMERCIAL] } : undefined,
      });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});
