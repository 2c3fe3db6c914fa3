import type { ErrorCode } from '../errors/error-catalogue.js';
import type { PaymentStatus } from './payment.js';

/**
 * What can happen to a payment. Creation ends PENDING (every path through `finishPayment`, `finish-payment.ts`) with AUTHORIZE (MANUAL capture),
 * AUTHORIZE_AND_CAPTURE (AUTOMATIC capture) or FAIL; follow-ups (`follow-up-service.ts`) are CAPTURE, REFUND and
 * REVERSE. A declined follow-up is no transition: the payment keeps its status and gains a FAILED operation.
 */
export type PaymentTransition = 'AUTHORIZE' | 'AUTHORIZE_AND_CAPTURE' | 'FAIL' | 'CAPTURE' | 'REFUND' | 'REVERSE';

/** The follow-up transitions, as merchants request them (DESIGN.md §4 endpoints). */
export type FollowUpTransition = Extract<PaymentTransition, 'CAPTURE' | 'REFUND' | 'REVERSE'>;

/**
 * The payment state machine (drawn in `README.md` beside this file; DESIGN.md §4 "Payment details"). Every edge not
 * listed is forbidden. Amount limits come on top: CAPTURE only up to the authorized amount, REFUND only up to the
 * captured amount, REVERSE only with nothing captured (which AUTHORIZED implies: any capture moves to OK).
 */
export const PAYMENT_TRANSITIONS: Readonly<
  Record<PaymentStatus, Readonly<Partial<Record<PaymentTransition, PaymentStatus>>>>
> = {
  PENDING: { AUTHORIZE: 'AUTHORIZED', AUTHORIZE_AND_CAPTURE: 'OK', FAIL: 'FAILED' },
  AUTHORIZED: { CAPTURE: 'OK', REVERSE: 'REVERSED' },
  OK: { CAPTURE: 'OK', REFUND: 'OK' },
  FAILED: {},
  REVERSED: {},
};

/** The status after `transition` from `from`, or undefined when the edge is forbidden. */
export function nextStatus(from: PaymentStatus, transition: PaymentTransition): PaymentStatus | undefined {
  return PAYMENT_TRANSITIONS[from][transition];
}

/** The 409 error code of a forbidden follow-up edge (DESIGN.md §4 Errors: state conflicts are 409). */
export const FORBIDDEN_FOLLOW_UP_CODES: Readonly<Record<FollowUpTransition, ErrorCode>> = {
  CAPTURE: 'PAYMENT_NOT_CAPTURABLE',
  REFUND: 'PAYMENT_NOT_REFUNDABLE',
  REVERSE: 'PAYMENT_NOT_REVERSIBLE',
};
