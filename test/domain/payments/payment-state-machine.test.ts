import { describe, expect, it } from 'vitest';
import { type ErrorCode, KassaError } from '../../../src/domain/errors/error-catalogue.js';
import { planFollowUp } from '../../../src/domain/payments/follow-up-plan.js';
import type { PaymentStatus } from '../../../src/domain/payments/payment.js';
import {
  FORBIDDEN_FOLLOW_UP_CODES,
  type FollowUpTransition,
  nextStatus,
  PAYMENT_TRANSITIONS,
  type PaymentTransition,
} from '../../../src/domain/payments/payment-state-machine.js';
import { httpStatusOf } from '../../../src/http/problem.js';
import { paymentFixture } from './payment-fixture.js';

const STATUSES: PaymentStatus[] = ['PENDING', 'AUTHORIZED', 'OK', 'FAILED', 'REVERSED'];

/** The whole machine of src/domain/payments/README.md: every (status, transition) pair, allowed or forbidden. */
const EDGES: [PaymentStatus, PaymentTransition, PaymentStatus | undefined][] = [
  ['PENDING', 'AUTHORIZE', 'AUTHORIZED'],
  ['PENDING', 'AUTHORIZE_AND_CAPTURE', 'OK'],
  ['PENDING', 'FAIL', 'FAILED'],
  ['PENDING', 'CAPTURE', undefined],
  ['PENDING', 'REFUND', undefined],
  ['PENDING', 'REVERSE', undefined],
  ['AUTHORIZED', 'AUTHORIZE', undefined],
  ['AUTHORIZED', 'AUTHORIZE_AND_CAPTURE', undefined],
  ['AUTHORIZED', 'FAIL', undefined],
  ['AUTHORIZED', 'CAPTURE', 'OK'],
  ['AUTHORIZED', 'REFUND', undefined],
  ['AUTHORIZED', 'REVERSE', 'REVERSED'],
  ['OK', 'AUTHORIZE', undefined],
  ['OK', 'AUTHORIZE_AND_CAPTURE', undefined],
  ['OK', 'FAIL', undefined],
  ['OK', 'CAPTURE', 'OK'],
  ['OK', 'REFUND', 'OK'],
  ['OK', 'REVERSE', undefined],
  ['FAILED', 'AUTHORIZE', undefined],
  ['FAILED', 'AUTHORIZE_AND_CAPTURE', undefined],
  ['FAILED', 'FAIL', undefined],
  ['FAILED', 'CAPTURE', undefined],
  ['FAILED', 'REFUND', undefined],
  ['FAILED', 'REVERSE', undefined],
  ['REVERSED', 'AUTHORIZE', undefined],
  ['REVERSED', 'AUTHORIZE_AND_CAPTURE', undefined],
  ['REVERSED', 'FAIL', undefined],
  ['REVERSED', 'CAPTURE', undefined],
  ['REVERSED', 'REFUND', undefined],
  ['REVERSED', 'REVERSE', undefined],
];

describe('payment state machine', () => {
  it('the edge table covers every (status, transition) pair exactly once', () => {
    const transitions = new Set(EDGES.map(([, t]) => t));
    expect(EDGES).toHaveLength(STATUSES.length * transitions.size);
    expect(new Set(EDGES.map(([s, t]) => `${s}/${t}`)).size).toBe(EDGES.length);
    const allowed = Object.entries(PAYMENT_TRANSITIONS).flatMap(([s, edges]) =>
      Object.entries(edges).map(([t, to]) => [s, t, to]),
    );
    expect(allowed.sort()).toEqual(EDGES.filter(([, , to]) => to !== undefined).sort());
  });

  it.each(EDGES)('%s --%s--> %s', (from, transition, to) => {
    expect(nextStatus(from, transition)).toBe(to);
  });
});

/** A payment of 10 000 in each status; OK is partly captured (5 000) so that both CAPTURE and REFUND apply. */
const inStatus = (status: PaymentStatus) =>
  paymentFixture({ status, capturedValue: status === 'OK' ? 5_000 : 0, surchargeValue: 180 });

const FOLLOW_UPS: [PaymentStatus, FollowUpTransition, PaymentStatus | string][] = EDGES.filter(
  (e): e is [PaymentStatus, FollowUpTransition, PaymentStatus | undefined] =>
    e[1] === 'CAPTURE' || e[1] === 'REFUND' || e[1] === 'REVERSE',
).map(([from, t, to]) => [from, t, to ?? FORBIDDEN_FOLLOW_UP_CODES[t]]);

describe('follow-ups against the state machine', () => {
  it.each(FOLLOW_UPS)('%s + %s → %s', (from, transition, expected) => {
    const value = transition === 'REVERSE' ? undefined : 1_000;
    if (STATUSES.includes(expected as PaymentStatus)) {
      expect(planFollowUp(inStatus(from), transition, value).status).toBe(expected);
      return;
    }
    let error: unknown;
    try {
      planFollowUp(inStatus(from), transition, value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KassaError);
    expect(error).toMatchObject({ code: expected });
    expect(httpStatusOf(expected as ErrorCode)).toBe(409);
  });

  // Money: the amount limits on top of the edges.
  it.each([
    ['capture above the authorized amount not yet captured', 'CAPTURE', 5_001, 'CAPTURE_EXCEEDS_AUTHORIZED', 409],
    ['refund above the captured amount not yet refunded', 'REFUND', 3_001, 'REFUND_EXCEEDS_CAPTURED', 409],
    ['capture without amount', 'CAPTURE', undefined, 'VALIDATION_FAILED', 400],
    ['refund without amount', 'REFUND', undefined, 'VALIDATION_FAILED', 400],
  ] as const)('%s is refused with %s', (_name, transition, value, code, status) => {
    const p = paymentFixture({ status: 'OK', capturedValue: 5_000, refundedValue: 2_000 });
    expect(() => planFollowUp(p, transition, value)).toThrowError(expect.objectContaining({ code }));
    expect(httpStatusOf(code)).toBe(status);
  });

  it('capture of exactly the rest and refund of exactly the rest are allowed', () => {
    const p = paymentFixture({ status: 'OK', capturedValue: 5_000, refundedValue: 2_000 });
    expect(planFollowUp(p, 'CAPTURE', 5_000).value).toBe(5_000);
    expect(planFollowUp(p, 'REFUND', 3_000).value).toBe(3_000);
  });

  it('a reversal amount other than the authorized amount is refused with VALIDATION_FAILED naming amount.value', () => {
    expect(() => planFollowUp(paymentFixture(), 'REVERSE', 9_999)).toThrowError(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        errors: [expect.objectContaining({ field: 'amount.value' })],
      }),
    );
  });

  it('a reversal releases the whole authorization including the surcharge', () => {
    expect(planFollowUp(paymentFixture({ surchargeValue: 180 }), 'REVERSE', 10_000)).toEqual({
      transition: 'REVERSE',
      status: 'REVERSED',
      value: 10_000,
      surchargeValue: 180,
    });
  });
});
