import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { directPaymentBody } from '../../../bench/workload.js';
import { DIALECTS } from '../../helpers/dialects.js';
import { spyOnStatements } from '../../helpers/pg-queries.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

/**
 * What a getByPayId with HTTP Basic asks PostgreSQL (issue 12): the failure count and the credentials epoch in ONE
 * statement (the merchant and key then come from the credential cache), and the payment with its operations in one
 * more. Nothing else: every statement here is a network round trip on the event loop.
 */
describe.runIf(DIALECTS.includes('postgres'))('the database reads of an authenticated lookup (postgres)', () => {
  let t: TestKassa;
  let auth: { merchantId: string; apiKey: string };
  let payId: string;

  beforeAll(async () => {
    t = await startTestKassa('postgres');
    const { merchantId, apiKey } = await t.createMerchant();
    auth = { merchantId, apiKey };
    const created = await t.call('POST', '/api/v1/payments', { auth, json: JSON.parse(directPaymentBody('reads-1')) });
    expect(created.status).toBe(201);
    payId = created.body.payId;
    expect((await t.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth })).status).toBe(200); // warm the cache
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t?.close();
  });

  it('is two statements: failure count with epoch, then payment with operations', async () => {
    const queries = spyOnStatements();
    const response = await t.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth });
    const sent = queries.texts();
    queries.restore();
    expect(response.status).toBe(200);
    expect(sent, sent.join('\n')).toHaveLength(2);
    expect(sent[0]).toMatch(/"auth_epoch".*"rate_limit_counter"|"rate_limit_counter".*"auth_epoch"/s);
    expect(sent[1]).toMatch(/^select "payment"\.\*, .*from "payment_operation".*from "payment"/s);
  });
});
