import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

/** The value of one sample line of the Prometheus text, or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe('GET /metrics (DESIGN.md §9)', () => {
  let t: TestKassa;
  beforeAll(async () => {
    t = await startTestKassa('sqlite');
  });
  afterAll(async () => t?.close());

  it('counts requests by route pattern, payments by final status, 3-D Secure results and the outbox backlog', async () => {
    // A sandbox merchant whose webhook nobody answers: its events wait in the outbox after a failed attempt.
    const m = await t.createMerchant({ webhookUrl: 'http://127.0.0.1:9/kassa-events' });
    await t.call('POST', '/api/v1/payments', { auth: m, json: directPayment(testPan('40000000', '1000')) });
    await t.call('POST', '/api/v1/payments', { auth: m, json: directPayment(testPan('40000000', '1002')) });
    await t.call('GET', '/api/v1/payments/getByTransId/none', { auth: m });
    await expect
      .poll(
        async () =>
          sample(
            (await t.call('GET', '/metrics')).text,
            'kassa_notification_delivery_attempts_total',
            'outcome="PENDING"',
          ),
        {
          timeout: 5000,
        },
      )
      .toBeGreaterThanOrEqual(1);
    const res = await t.call('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = res.text;
    expect(sample(text, 'kassa_http_requests_total', 'method="POST",route="/api/v1/payments",status="201"')).toBe(2);
    // Route patterns, never raw URLs: ids must not become label values.
    expect(
      sample(
        text,
        'kassa_http_requests_total',
        'method="GET",route="/api/v1/payments/getByTransId/:transID",status="404"',
      ),
    ).toBe(1);
    expect(text).not.toContain('getByTransId/none');
    expect(sample(text, 'kassa_payments_total', 'status="OK",integration_type="DIRECT"')).toBe(1);
    expect(sample(text, 'kassa_payments_total', 'status="FAILED",integration_type="DIRECT"')).toBe(1);
    expect(sample(text, 'kassa_three_ds_results_total', 'trans_status="Y"')).toBe(1);
    expect(sample(text, 'kassa_three_ds_results_total', 'trans_status="N"')).toBe(1);
    expect(sample(text, 'kassa_outbox_pending')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'kassa_outbox_oldest_due_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'kassa_outbox_failed')).toBe(0);
    expect(text).toContain('kassa_process_cpu_seconds_total');
  });
});

describe('GET /metrics with KASSA_ADMIN_TOKEN set', () => {
  const adminToken = 'metrics-admin-token-metrics-admin-token-0123';
  let t: TestKassa;
  beforeAll(async () => {
    t = await startTestKassa('sqlite', {}, { KASSA_ADMIN_TOKEN: adminToken });
  });
  afterAll(async () => t?.close());

  // Security: payment counts are not for anyone who can reach the port.
  it('needs the admin token as a Bearer token; a merchant key is not enough', async () => {
    const m = await t.createMerchant();
    expect((await t.call('GET', '/metrics')).status).toBe(401);
    expect((await t.call('GET', '/metrics', { auth: m })).status).toBe(401);
    const ok = await t.call('GET', '/metrics', { auth: { token: adminToken } });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('kassa_outbox_pending');
  });
});
