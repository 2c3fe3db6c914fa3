import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { type KassaNodes, startKassaNodes } from '../scale/kassa-nodes.js';
import { recordSummary } from './summary.js';

const REQUESTS = 80;
const CONCURRENCY = 8;

/**
 * Crash (issue 14): a node SIGKILLed under load and restarted on the same data keeps every payment it acknowledged
 * unchanged, delivers every notification it committed, and an Idempotency-Key retried after the crash never creates
 * a second payment.
 */
describe.runIf(DIALECTS.includes('postgres'))('crash', () => {
  let k: KassaNodes;

  beforeAll(async () => {
    k = await startKassaNodes(1, { KASSA_NOTIFICATION_LEASE: '3000' });
  });
  afterAll(async () => {
    await k?.close();
  });

  // Money: what a merchant was told survives a crash; a retry never charges twice.
  it('SIGKILL under load, restart on the same data: nothing acknowledged lost, no second payment on retry', async () => {
    const requests = Array.from({ length: REQUESTS }, (_, i) => ({
      key: randomUUID(),
      body: directPayment(testPan(i % 2 ? '51000000' : '40000000', '1000'), {
        transId: `crash-${i}-${randomUUID()}`,
        amount: { value: 1_000 + i, currency: 'DKK' },
        captureMethod: { type: i % 3 === 0 ? 'MANUAL' : 'AUTOMATIC' },
      }),
    }));
    const acknowledged = new Map<number, { payId: string; status: string; totalAmount: unknown }>();
    let next = 0;
    let killing: Promise<void> | undefined;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length) {
          const i = next++;
          const r = requests[i] as (typeof requests)[number];
          if (i === REQUESTS / 2) killing = k.kill(0);
          try {
            const res = await k.call(0, 'POST', '/api/v1/payments', {
              auth: k.merchant,
              json: r.body,
              headers: { 'idempotency-key': r.key },
            });
            if (res.status === 201) {
              acknowledged.set(i, {
                payId: res.body.payId,
                status: res.body.status,
                totalAmount: res.body.totalAmount,
              });
            }
          } catch {
            // cut by the crash, or refused while the node is down: the client does not know the outcome
          }
        }
      }),
    );
    await killing;
    expect(acknowledged.size).toBeGreaterThan(0);
    expect(acknowledged.size).toBeLessThan(REQUESTS);
    await k.restart(0);

    const failures: string[] = [];
    let dataLost = 0;
    // Every acknowledged payment is there, unchanged.
    for (const [i, told] of acknowledged) {
      const res = await k.call(0, 'GET', `/api/v1/payments/getByPayId/${told.payId}`, { auth: k.merchant });
      if (res.status !== 200) {
        dataLost++;
        failures.push(`request ${i}: acknowledged ${told.payId} answers ${res.status}`);
      } else if (
        res.body.status !== told.status ||
        JSON.stringify(res.body.totalAmount) !== JSON.stringify(told.totalAmount)
      ) {
        dataLost++;
        failures.push(`request ${i}: ${told.payId} changed from ${told.status} to ${res.body.status}`);
      }
    }
    // Every request retried with its Idempotency-Key: a replay of the same payment, a refusal while the dead
    // process's claim lasts, or (never reached before the crash) a first creation — never a second payment.
    const retried = new Map<string, number>();
    for (const [i, r] of requests.entries()) {
      const res = await k.call(0, 'POST', '/api/v1/payments', {
        auth: k.merchant,
        json: r.body,
        headers: { 'idempotency-key': r.key },
      });
      const outcome = res.status === 201 ? 'created or replayed' : String(res.body?.code ?? res.status);
      retried.set(outcome, (retried.get(outcome) ?? 0) + 1);
      const told = acknowledged.get(i);
      if (told && (res.status !== 201 || res.body.payId !== told.payId)) {
        failures.push(
          `request ${i}: retry answered ${res.status} ${res.body?.payId ?? res.body?.code}, was ${told.payId}`,
        );
      }
      if (
        !told &&
        res.status !== 201 &&
        res.body?.code !== 'IDEMPOTENCY_KEY_IN_USE' &&
        res.body?.code !== 'TRANS_ID_IN_USE'
      ) {
        failures.push(`request ${i}: retry answered ${res.status} ${res.text.slice(0, 120)}`);
      }
    }
    const rows = await k.database.db.kysely
      .selectFrom('payment')
      .select(['trans_id'])
      .where('merchant_id', '=', k.merchant.merchantId)
      .execute();
    const perTransId = new Map<string, number>();
    for (const r of rows) perTransId.set(r.trans_id, (perTransId.get(r.trans_id) ?? 0) + 1);
    const doubled = [...perTransId.entries()].filter(([, n]) => n > 1);
    for (const [transId, n] of doubled) failures.push(`${transId}: ${n} payments`);

    // Every notification committed (before or after the crash) is delivered; the dead node's claims expire first.
    await expect
      .poll(
        async () =>
          (
            await k.database.db.kysely
              .selectFrom('notification')
              .select('id')
              .where('merchant_id', '=', k.merchant.merchantId)
              .where('status', '!=', 'DELIVERED')
              .execute()
          ).length,
        { timeout: 60_000, interval: 500 },
      )
      .toBe(0);
    const committed = await k.database.db.kysely
      .selectFrom('notification')
      .select('id')
      .where('merchant_id', '=', k.merchant.merchantId)
      .execute();
    const received = k.receiver.ids();
    const undelivered = committed.filter((n) => !received.has(n.id));
    dataLost += undelivered.length;
    for (const n of undelivered) failures.push(`notification ${n.id} committed but never received`);

    recordSummary({
      area: 'crash',
      tried: REQUESTS * 2,
      failures: failures.length,
      dataLost,
      note: `${acknowledged.size} of ${REQUESTS} acknowledged before SIGKILL, ${committed.length} notifications, retries: ${JSON.stringify(Object.fromEntries(retried))}`,
    });
    expect(failures).toEqual([]);
    expect(dataLost).toBe(0);
  });
});
