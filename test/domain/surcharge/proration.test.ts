import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KassaError } from '../../../src/domain/errors/error-catalogue.js';
import { applyFollowUp, planFollowUp } from '../../../src/domain/payments/follow-up-plan.js';
import type { Payment } from '../../../src/domain/payments/payment.js';
import {
  captureSurchargeShare,
  proratedTotal,
  refundSurchargeShare,
  type SurchargeTotals,
} from '../../../src/domain/surcharge/proration.js';
import { httpStatusOf } from '../../../src/http/problem.js';
import { paymentFixture } from '../payments/payment-fixture.js';

const totals = (t: Partial<SurchargeTotals>): SurchargeTotals => ({
  authorizedValue: 10_000,
  surchargeValue: 180,
  capturedValue: 0,
  surchargeCapturedValue: 0,
  refundedValue: 0,
  surchargeRefundedValue: 0,
  ...t,
});

describe('proratedTotal (round half up of total × part / whole)', () => {
  it.each([
    [180, 3_333, 10_000, 60], // 59.994
    [180, 1, 10_000, 0], // 0.018
    [100, 1, 2, 50],
    [1, 1, 2, 1], // 0.5 rounds up
    [1, 1, 3, 0], // 0.33
    [2, 1, 3, 1], // 0.67
    [5, 1, 4, 1], // 1.25
    [99_999_999_999, 99_999_999_998, 99_999_999_999, 99_999_999_998], // exact beyond 2^53 intermediates
  ])('proratedTotal(%i, %i, %i) = %i', (total, part, whole, expected) => {
    expect(proratedTotal(total, part, whole)).toBe(expected);
  });

  it('refuses a zero whole and negative or fractional inputs', () => {
    expect(() => proratedTotal(1, 1, 0)).toThrow(RangeError);
    expect(() => proratedTotal(-1, 1, 2)).toThrow(RangeError);
    expect(() => proratedTotal(1.5, 1, 2)).toThrow(RangeError);
  });
});

describe('surcharge shares', () => {
  // Money: the last capture takes the remainder, so the captured surcharge ends exactly at the authorized one.
  it('three captures of 3 333 + 3 333 + 3 334 carry 60 + 60 + 60 of a 180 surcharge', () => {
    let t = totals({});
    const shares: number[] = [];
    for (const v of [3_333, 3_333, 3_334]) {
      const share = captureSurchargeShare(t, v);
      shares.push(share);
      t = { ...t, capturedValue: t.capturedValue + v, surchargeCapturedValue: t.surchargeCapturedValue + share };
    }
    expect(shares).toEqual([60, 60, 60]);
  });

  it('a capture of 1 then 9 999 carries 0 then the whole 180', () => {
    const first = captureSurchargeShare(totals({}), 1);
    expect(first).toBe(0);
    expect(captureSurchargeShare(totals({ capturedValue: 1 }), 9_999)).toBe(180);
  });

  it('seven captures of odd sizes sum exactly to a surcharge of 7', () => {
    let t = totals({ authorizedValue: 1_000, surchargeValue: 7 });
    for (const v of [143, 143, 143, 142, 143, 143, 143]) {
      t = {
        ...t,
        surchargeCapturedValue: t.surchargeCapturedValue + captureSurchargeShare(t, v),
        capturedValue: t.capturedValue + v,
      };
    }
    expect(t).toMatchObject({ capturedValue: 1_000, surchargeCapturedValue: 7 });
  });

  // Money: refunding everything captured refunds exactly the captured surcharge.
  it('refunds of a partial capture end exactly at the captured surcharge', () => {
    let t = totals({ capturedValue: 6_000, surchargeCapturedValue: 108 });
    for (const v of [1_001, 2_999, 2_000]) {
      t = {
        ...t,
        surchargeRefundedValue: t.surchargeRefundedValue + refundSurchargeShare(t, v),
        refundedValue: t.refundedValue + v,
      };
    }
    expect(t).toMatchObject({ refundedValue: 6_000, surchargeRefundedValue: 108 });
  });

  it('a capture above the authorized amount or a refund above the captured amount is a RangeError', () => {
    expect(() => captureSurchargeShare(totals({ capturedValue: 9_000 }), 1_001)).toThrow(RangeError);
    expect(() => refundSurchargeShare(totals({ capturedValue: 1_000, refundedValue: 500 }), 501)).toThrow(RangeError);
  });
});

type Step = { kind: 'CAPTURE' | 'REFUND'; fraction: number; overshoot: boolean };

const stepArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom('CAPTURE' as const, 'REFUND' as const),
  fraction: fc.double({ min: 0, max: 1, noNaN: true }),
  overshoot: fc.boolean(),
});

const sum = (p: Payment, type: 'CAPTURE' | 'REFUND', key: 'value' | 'surchargeValue') =>
  p.operations.filter((o) => o.type === type).reduce((s, o) => s + o[key], 0);

/** |running − exact| ≤ bound, exact = total × part / whole, compared in integers (BigInt). */
const within = (running: number, total: number, part: number, whole: number, bound2: bigint) =>
  whole === 0 ||
  (() => {
    const diff = 2n * BigInt(running) * BigInt(whole) - 2n * BigInt(total) * BigInt(part);
    return (diff < 0n ? -diff : diff) <= bound2 * BigInt(whole);
  })();

function checkInvariants(p: Payment): void {
  const S = p.surcharge.value;
  // Totals are the sums of the operations: nothing drifts.
  expect(sum(p, 'CAPTURE', 'value')).toBe(p.capturedValue);
  expect(sum(p, 'CAPTURE', 'surchargeValue')).toBe(p.surchargeCapturedValue);
  expect(sum(p, 'REFUND', 'value')).toBe(p.refundedValue);
  expect(sum(p, 'REFUND', 'surchargeValue')).toBe(p.surchargeRefundedValue);
  // Nothing exceeds what was authorized or captured.
  expect(p.capturedValue).toBeLessThanOrEqual(p.value);
  expect(p.surchargeCapturedValue).toBeLessThanOrEqual(S);
  expect(p.refundedValue).toBeLessThanOrEqual(p.capturedValue);
  expect(p.surchargeRefundedValue).toBeLessThanOrEqual(p.surchargeCapturedValue);
  expect(p.operations.every((o) => o.value >= 0 && o.surchargeValue >= 0)).toBe(true);
  // Completion is exact.
  if (p.capturedValue === p.value) expect(p.surchargeCapturedValue).toBe(S);
  if (p.refundedValue === p.capturedValue) expect(p.surchargeRefundedValue).toBe(p.surchargeCapturedValue);
  // The running totals track the exact proportion: captured within ½, refunded within 1 minor unit.
  expect(within(p.surchargeCapturedValue, S, p.capturedValue, p.value, 1n)).toBe(true);
  expect(within(p.surchargeRefundedValue, S, p.refundedValue, p.value, 2n)).toBe(true);
}

describe('property: random sequences of partial captures and refunds', () => {
  // Money: surcharge sums never drift and never exceed what was authorized or captured, for any sequence.
  it('totals equal the sums of the operations, stay within authorized/captured, and end exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 99_999_999_999 }),
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.array(stepArb, { maxLength: 40 }),
        (value, surchargeValue, steps) => {
          let p = paymentFixture({ value, surchargeValue });
          let n = 0;
          for (const step of steps) {
            const room = step.kind === 'CAPTURE' ? p.value - p.capturedValue : p.capturedValue - p.refundedValue;
            const amount = step.overshoot ? room + 1 : Math.max(1, Math.ceil(room * step.fraction));
            let plan: ReturnType<typeof planFollowUp>;
            try {
              plan = planFollowUp(p, step.kind, amount);
            } catch (error) {
              // Refused: over the limit, or nothing to refund yet (AUTHORIZED). Nothing changes.
              expect(amount > room || (step.kind === 'REFUND' && p.status === 'AUTHORIZED')).toBe(true);
              expect(httpStatusOf((error as KassaError).code)).toBe(409);
              continue;
            }
            expect(amount).toBeLessThanOrEqual(room);
            n++;
            p = applyFollowUp(
              p,
              plan,
              {
                xId: String(n).padStart(32, '0'),
                type: step.kind,
                value: plan.value,
                surchargeValue: plan.surchargeValue,
                status: 'OK',
                responseCode: '00000000',
                creationDate: p.updatedAt,
              },
              p.updatedAt,
            );
            checkInvariants(p);
          }
          // Complete the capture, then the refund: both end exactly at the surcharge.
          for (const kind of ['CAPTURE', 'REFUND'] as const) {
            const room = kind === 'CAPTURE' ? p.value - p.capturedValue : p.capturedValue - p.refundedValue;
            if (room === 0) continue;
            const plan = planFollowUp(p, kind, room);
            p = applyFollowUp(
              p,
              plan,
              {
                xId: `${kind}-final`,
                type: kind,
                value: plan.value,
                surchargeValue: plan.surchargeValue,
                status: 'OK',
                responseCode: '00000000',
                creationDate: p.updatedAt,
              },
              p.updatedAt,
            );
            checkInvariants(p);
          }
          expect(p).toMatchObject({
            capturedValue: value,
            surchargeCapturedValue: surchargeValue,
            refundedValue: value,
            surchargeRefundedValue: surchargeValue,
          });
        },
      ),
      { numRuns: 500 },
    );
  });
});
