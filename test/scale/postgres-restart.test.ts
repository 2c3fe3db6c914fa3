import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlementTotals } from '../../src/integrations/acquirer-simulator/settlement-ledger.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { type KassaNodes, startKassaNodes } from './kassa-nodes.js';
import { type OwnPostgres, postgresBinDir, startOwnPostgres } from './own-postgres.js';

const binDir = postgresBinDir();

/**
 * Faults (issue 14): PostgreSQL restarted under load — a cluster this test owns, never the shared one. Requests in
 * flight get 503, the nodes stay up, /readyz says 503 while the database is gone, service resumes by itself, nothing
 * acknowledged is lost, no notification is lost, no follow-up is applied twice.
 */
describe.runIf(DIALECTS.includes('postgres') && binDir !== undefined)('PostgreSQL restarted under load', () => {
  let pgServer: OwnPostgres;
  let k: KassaNodes;

  beforeAll(async () => {
    pgServer = await startOwnPostgres(binDir as string);
    k = await startKassaNodes(2, { KASSA_NOTIFICATION_LEASE: '3000' }, { postgresAdminUrl: pgServer.adminUrl });
  }, 120_000);
  afterAll(async () => {
    await k?.close();
    pgServer?.destroy();
  });

  // Money: a database outage may refuse payments, never lose or double one.
  it('503 while it is down, /readyz reflects it, service resumes by itself, nothing acknowledged lost', {
    timeout: 120_000,
  }, async () => {
    const auth = { merchantId: k.merchant.merchantId, apiKey: k.merchant.apiKey };
    const pay = (node: number) =>
      k.call(node, 'POST', '/api/v1/payments', {
        auth,
        json: directPayment(testPan('40000000', '1000'), { captureMethod: { type: 'MANUAL' } }),
        headers: { 'idempotency-key': randomUUID() },
      });
    const before = await Promise.all([pay(0), pay(1)]);
    expect(before.map((r) => r.status)).toEqual([201, 201]);

    pgServer.stop();
    const down = await Promise.all([pay(0), pay(1)]);
    // Refused as retryable, not as an internal error; the nodes answer and stay up.
    expect(down.map((r) => r.status)).toEqual([503, 503]);
    expect(down[0]?.body).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    const readyDown = await Promise.all([0, 1].map((i) => k.call(i, 'GET', '/readyz')));
    expect(readyDown.map((r) => r.status)).toEqual([503, 503]);
    const capture = { key: randomUUID(), payId: before[0]?.body.payId as string };
    const captureDown = await k.call(1, 'POST', `/api/v1/payments/${capture.payId}/captures`, {
      auth,
      json: { transId: `cap-${capture.key}`.slice(0, 60), amount: { value: 5_000, currency: 'DKK' } },
      headers: { 'idempotency-key': capture.key },
    });
    expect(captureDown.status).toBe(503);

    pgServer.start();
    await expect
      .poll(async () => (await Promise.all([0, 1].map((i) => k.call(i, 'GET', '/readyz')))).map((r) => r.status), {
        timeout: 30_000,
        interval: 250,
      })
      .toEqual([200, 200]);
    for (const node of k.nodes) expect(node.process.child.exitCode).toBeNull();
    const after = await Promise.all([pay(0), pay(1)]);
    expect(after.map((r) => r.status)).toEqual([201, 201]);
    // The capture refused during the outage, retried with its key, is applied once.
    for (let i = 0; i < 2; i++) {
      const retry = await k.call(i, 'POST', `/api/v1/payments/${capture.payId}/captures`, {
        auth,
        json: { transId: `cap-${capture.key}`.slice(0, 60), amount: { value: 5_000, currency: 'DKK' } },
        headers: { 'idempotency-key': capture.key },
      });
      expect(retry.status).toBe(201);
    }
    const ledger = settlementTotals(await k.settlement());
    for (const r of [...before, ...after]) {
      const details = (await k.call(0, 'GET', `/api/v1/payments/getByPayId/${r.body.payId}`, { auth })).body;
      expect(details.status).toBe(r.body.payId === capture.payId ? 'OK' : 'AUTHORIZED');
      const settled = ledger.get(r.body.payId);
      expect([...(settled?.messagesPerXId.values() ?? [])].every((n) => n === 1)).toBe(true);
      expect(settled?.captured ?? 0).toBe(details.totalAmount.capturedValue);
    }
    // Every committed notification is delivered.
    await expect
      .poll(
        async () =>
          (
            await k.database.db.kysely
              .selectFrom('notification')
              .select('id')
              .where('status', '!=', 'DELIVERED')
              .execute()
          ).length,
        { timeout: 30_000, interval: 500 },
      )
      .toBe(0);
    const committed = await k.database.db.kysely.selectFrom('notification').select('id').execute();
    const received = k.receiver.ids();
    expect(committed.filter((n) => !received.has(n.id))).toEqual([]);
  });
});
