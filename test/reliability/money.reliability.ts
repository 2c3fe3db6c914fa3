import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { settlementTotals } from '../../src/integrations/acquirer-simulator/settlement-ledger.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { Journeys } from '../scale/journeys.js';
import { type KassaNodes, startKassaNodes } from '../scale/kassa-nodes.js';
import { recordSummary } from './summary.js';

const PAYMENTS = Number(process.env.KASSA_MONEY_PAYMENTS ?? 40);
const CONCURRENCY = 6;

type Step = { kind: 'captures' | 'refunds' | 'reversals'; fraction: number; node: number };
type Plan = { hosted: boolean; card: string; value: number; manual: boolean; steps: Step[] };

const planArbitrary: fc.Arbitrary<Plan> = fc.record({
  hosted: fc.boolean(),
  card: fc.constantFrom(testPan('40000000', '1000'), testPan('51000000', '1000'), testPan('40000010', '1000')),
  value: fc.integer({ min: 1, max: 250_000 }),
  manual: fc.boolean(),
  steps: fc.array(
    fc.record({
      kind: fc.constantFrom('captures' as const, 'captures' as const, 'refunds' as const, 'reversals' as const),
      // > 1 asks for more than is left: Kassa must refuse it and nothing may move.
      fraction: fc.oneof(fc.double({ min: 0.01, max: 1, noNaN: true }), fc.constant(1), fc.constant(1.5)),
      node: fc.integer({ min: 0, max: 1 }),
    }),
    { maxLength: 6 },
  ),
});

/**
 * Money (issue 14): a random workload of payments (DIRECT and surcharged HOSTED), partial captures, refunds and
 * reversals spread over two nodes; afterwards the sums Kassa reports equal the acquirer simulator's settlement ledger
 * to the minor unit, surcharge included, per payment and in total.
 */
describe.runIf(DIALECTS.includes('postgres'))('money', () => {
  let k: KassaNodes;
  let journeys: Journeys;

  beforeAll(async () => {
    k = await startKassaNodes(2);
    journeys = new Journeys(k, readFileSync(inject('tlsCertFile'), 'utf8'));
  });
  afterAll(async () => {
    await journeys?.close();
    await k?.close();
  });

  // Money: reconciliation against the acquirer's records is the final word on whether Kassa moved the right amounts.
  it('after a random workload over two nodes, Kassa’s sums equal the acquirer’s ledger to the minor unit', async () => {
    const plans = fc.sample(planArbitrary, { numRuns: PAYMENTS, seed: Number(process.env.KASSA_MONEY_SEED ?? 1122) });
    const failures: string[] = [];
    const acknowledged: { payId: string; xId: string; kind: string }[] = [];
    const payIds: string[] = [];
    let operations = 0;
    let next = 0;
    const auth = { merchantId: k.merchant.merchantId, apiKey: k.merchant.apiKey };

    const runPlan = async (plan: Plan, n: number) => {
      let payId: string;
      let transId: string;
      if (plan.hosted) {
        // Hosted (AUTOMATIC capture; a commercial Visa is surcharged 1.8 %), then the planned refunds.
        const value = Math.max(plan.value, 100);
        const out = await journeys.run('HOSTED', value);
        payId = out.payId as string;
        transId = out.transId;
        for (const f of out.followUps) acknowledged.push({ payId, xId: f.xId, kind: f.kind });
      } else {
        transId = `money-${n}-${randomUUID()}`;
        const created = await k.call(n % 2, 'POST', '/api/v1/payments', {
          auth,
          json: directPayment(plan.card, {
            transId,
            amount: { value: plan.value, currency: 'DKK' },
            captureMethod: { type: plan.manual ? 'MANUAL' : 'AUTOMATIC' },
          }),
          headers: { 'idempotency-key': randomUUID() },
        });
        operations++;
        if (created.status !== 201) {
          failures.push(`create ${plan.value}: ${created.status} ${created.text.slice(0, 120)}`);
          return;
        }
        payId = created.body.payId;
      }
      payIds.push(payId);
      for (const step of plan.steps) {
        const details = (await k.call(step.node, 'GET', `/api/v1/payments/getByPayId/${payId}`, { auth })).body;
        const left =
          step.kind === 'captures'
            ? details.amount.value - details.amount.capturedValue
            : step.kind === 'refunds'
              ? details.amount.capturedValue - details.amount.refundedValue
              : details.amount.value;
        const value = Math.max(1, Math.round(left * step.fraction));
        operations++;
        const res = await k.call(step.node, 'POST', `/api/v1/payments/${payId}/${step.kind}`, {
          auth,
          json: { transId: `${step.kind}-${randomUUID()}`.slice(0, 60), amount: { value, currency: 'DKK' } },
          headers: { 'idempotency-key': randomUUID() },
        });
        if (res.status >= 500)
          failures.push(`${step.kind} ${value} of ${left}: ${res.status} ${res.text.slice(0, 120)}`);
        if (res.status >= 200 && res.status < 300) {
          const op = res.body.payment ? res.body : res.body;
          const xId = op.xId ?? (op.payment ?? op).operations?.at(-1)?.xId;
          acknowledged.push({ payId, xId, kind: step.kind });
          if (value > left && step.kind !== 'reversals')
            failures.push(`${step.kind} of ${value} accepted with ${left} left`);
        }
      }
    };
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < plans.length) {
          const n = next++;
          try {
            await runPlan(plans[n] as Plan, n);
          } catch (error) {
            failures.push(`plan ${n}: ${(error as Error).message.slice(0, 200)}`);
          }
        }
      }),
    );

    // Reconcile every payment and the totals.
    const records = await k.settlement();
    const ledger = settlementTotals(records);
    const settledXIds = new Set(records.map((r) => r.xId));
    let dataLost = 0;
    for (const a of acknowledged) {
      if (a.xId && !settledXIds.has(a.xId)) {
        dataLost++;
        failures.push(`${a.kind} ${a.xId} of ${a.payId} acknowledged but not at the acquirer`);
      }
    }
    const totals = { kassaCaptured: 0, kassaRefunded: 0, ledgerCaptured: 0, ledgerRefunded: 0, surcharge: 0 };
    for (const payId of payIds) {
      const details = (await k.call(0, 'GET', `/api/v1/payments/getByPayId/${payId}`, { auth })).body;
      const settled = ledger.get(payId);
      const captured = settled?.captured ?? 0;
      const refunded = settled?.refunded ?? 0;
      totals.kassaCaptured += details.totalAmount.capturedValue;
      totals.kassaRefunded += details.totalAmount.refundedValue;
      totals.ledgerCaptured += captured;
      totals.ledgerRefunded += refunded;
      totals.surcharge += details.surcharge.capturedValue ?? 0;
      if (captured !== details.totalAmount.capturedValue || refunded !== details.totalAmount.refundedValue) {
        failures.push(
          `${payId}: Kassa captured ${details.totalAmount.capturedValue} refunded ${details.totalAmount.refundedValue}, acquirer ${captured} / ${refunded}`,
        );
      }
      if (details.amount.capturedValue + details.surcharge.capturedValue !== details.totalAmount.capturedValue) {
        failures.push(`${payId}: amount + surcharge captured ≠ total captured`);
      }
      if ((settled?.reversed ?? false) !== (details.status === 'REVERSED')) failures.push(`${payId}: reversal differs`);
      for (const [xId, count] of settled?.messagesPerXId ?? [])
        if (count > 1) failures.push(`${xId} reached the acquirer ${count} times`);
    }
    recordSummary({
      area: 'money',
      tried: operations,
      failures: failures.length,
      dataLost,
      note:
        `${payIds.length} payments, captured ${totals.kassaCaptured} (acquirer ${totals.ledgerCaptured}), ` +
        `refunded ${totals.kassaRefunded} (acquirer ${totals.ledgerRefunded}), surcharge captured ${totals.surcharge}, minor units DKK`,
    });
    expect(failures).toEqual([]);
    expect(acknowledged.filter((a) => !a.xId)).toEqual([]);
    expect(totals.kassaCaptured).toBe(totals.ledgerCaptured);
    expect(totals.kassaRefunded).toBe(totals.ledgerRefunded);
    expect(totals.surcharge).toBeGreaterThan(0);
    expect(dataLost).toBe(0);
  });
});
