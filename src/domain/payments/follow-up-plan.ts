/**
 * The pure decision of a follow-up (DESIGN.md §4 "Follow-ups and surcharge"): which state machine edge, which
 * amount limits (counting PENDING reservations of the write-ahead), which surcharge share, and the payment after an
 * approved operation. No I/O: `follow-up-service.ts` loads, persists and calls the acquirer around it.
 */
import { KassaError, validationError } from '../errors/error-catalogue.js';
import { captureSurchargeShare, refundSurchargeShare, type SurchargeTotals } from '../surcharge/proration.js';
import type { OperationType, Payment, PaymentOperation, PaymentStatus } from './payment.js';
import type { PaymentEventType } from './payment-events.js';
import { FORBIDDEN_FOLLOW_UP_CODES, type FollowUpTransition, nextStatus } from './payment-state-machine.js';

/** The decided effect of a follow-up, before the acquirer is asked. Values in minor units. */
export interface FollowUpPlan {
  transition: FollowUpTransition;
  /** Status once the acquirer approves. */
  status: PaymentStatus;
  /** Merchant-basis value of the operation. */
  value: number;
  /** Surcharge share Kassa adds (proration, `surcharge/proration.ts`). */
  surchargeValue: number;
}

export const OPERATION_TYPES: Record<FollowUpTransition, OperationType> = {
  CAPTURE: 'CAPTURE',
  REFUND: 'REFUND',
  REVERSE: 'REVERSAL',
};

export const EVENT_TYPES: Record<FollowUpTransition, PaymentEventType> = {
  CAPTURE: 'payment.captured',
  REFUND: 'payment.refunded',
  REVERSE: 'payment.reversed',
};

/** What PENDING operations (write-ahead follow-ups awaiting the acquirer's answer) hold reserved. Minor units. */
export interface Reservations {
  capture: number;
  surchargeCapture: number;
  refund: number;
  surchargeRefund: number;
  reversal: boolean;
  /** A capture sent as the final one (OK or PENDING): nothing more can be captured. */
  finalCapture: boolean;
}

/** Sums the PENDING operations of a payment (their amounts are reserved until the acquirer's answer is recorded). */
export function reservationsOf(payment: Payment): Reservations {
  const r: Reservations = {
    capture: 0,
    surchargeCapture: 0,
    refund: 0,
    surchargeRefund: 0,
    reversal: false,
    finalCapture: false,
  };
  for (const op of payment.operations) {
    if (op.type === 'CAPTURE' && op.finalCapture && op.status !== 'FAILED') r.finalCapture = true;
    if (op.status !== 'PENDING') continue;
    if (op.type === 'CAPTURE') {
      r.capture += op.value;
      r.surchargeCapture += op.surchargeValue;
    } else if (op.type === 'REFUND') {
      r.refund += op.value;
      r.surchargeRefund += op.surchargeValue;
    } else if (op.type === 'REVERSAL') r.reversal = true;
  }
  return r;
}

/** The totals a new operation's surcharge share is prorated from: committed totals plus reservations. */
function surchargeTotals(p: Payment, r: Reservations): SurchargeTotals {
  return {
    authorizedValue: p.value,
    surchargeValue: p.surcharge.value,
    capturedValue: p.capturedValue + r.capture,
    surchargeCapturedValue: p.surchargeCapturedValue + r.surchargeCapture,
    refundedValue: p.refundedValue + r.refund,
    surchargeRefundedValue: p.surchargeRefundedValue + r.surchargeRefund,
  };
}

/**
 * Decides a follow-up on a payment (pure): the state machine edge, the amount limits and the surcharge share.
 * `value` is the merchant-basis amount (undefined for a reversal without amount). PENDING operations count against
 * the limits as if approved (their amounts are reserved), so two follow-ups decided one after the other while the
 * first still waits for the acquirer can never over-capture or over-refund together.
 * @throws KassaError PAYMENT_NOT_CAPTURABLE / PAYMENT_NOT_REFUNDABLE / PAYMENT_NOT_REVERSIBLE (409) for a forbidden
 * edge (a capture after the final capture, `finishAuth: "Y"`, or while a reversal is pending; a reversal with money
 * captured or a capture pending); CAPTURE_EXCEEDS_AUTHORIZED (409) when value > authorized − captured − reserved;
 * REFUND_EXCEEDS_CAPTURED (409) when value > captured − refunded − reserved; VALIDATION_FAILED (400) for a missing
 * amount or a reversal amount other than the authorized amount. Source: DESIGN.md §4 "Follow-ups and surcharge",
 * paygate-v2-wire.md §3 (`finishAuth`).
 */
export function planFollowUp(
  payment: Payment,
  transition: FollowUpTransition,
  value: number | undefined,
): FollowUpPlan {
  const status = nextStatus(payment.status, transition);
  const reserved = reservationsOf(payment);
  const blocked =
    transition === 'REVERSE'
      ? payment.capturedValue > 0 || reserved.capture > 0 || reserved.reversal
      : transition === 'CAPTURE'
        ? reserved.reversal || reserved.finalCapture
        : false;
  // AUTHORIZED implies nothing captured; the guards catch totals and reservations that forbid the edge.
  if (!status || blocked) {
    const why = reserved.finalCapture
      ? ' and its final capture (finishAuth Y) released the rest'
      : payment.capturedValue > 0 || reserved.capture > 0
        ? ' with money captured'
        : reserved.reversal
          ? ' with a reversal pending'
          : '';
    throw new KassaError(FORBIDDEN_FOLLOW_UP_CODES[transition], `payment ${payment.payId} is ${payment.status}${why}`);
  }
  const totals = surchargeTotals(payment, reserved);
  if (transition === 'REVERSE') {
    if (value !== undefined && value !== payment.value) {
      throw validationError([
        { field: 'amount.value', message: `a reversal cancels the whole authorization of ${payment.value}` },
      ]);
    }
    return { transition, status, value: payment.value, surchargeValue: payment.surcharge.value };
  }
  if (value === undefined) throw validationError([{ field: 'amount', message: 'is required' }]);
  if (transition === 'CAPTURE') {
    const capturable = payment.value - payment.capturedValue - reserved.capture;
    if (value > capturable) {
      throw new KassaError('CAPTURE_EXCEEDS_AUTHORIZED', `at most ${capturable} can still be captured`);
    }
    return { transition, status, value, surchargeValue: captureSurchargeShare(totals, value) };
  }
  const refundable = payment.capturedValue - payment.refundedValue - reserved.refund;
  if (value > refundable) {
    throw new KassaError('REFUND_EXCEEDS_CAPTURED', `at most ${refundable} can still be refunded`);
  }
  return { transition, status, value, surchargeValue: refundSurchargeShare(totals, value) };
}

/**
 * The payment after an approved follow-up (pure): new status and totals, and the operation in its list (replacing
 * the PENDING one of the same xId, else appended).
 * Source of the totals: DESIGN.md §4 "Payment details" (capturedValue / refundedValue per amount and surcharge).
 */
export function applyFollowUp(payment: Payment, plan: FollowUpPlan, operation: PaymentOperation, at: Date): Payment {
  const next: Payment = {
    ...payment,
    status: plan.status,
    operations: withOperation(payment.operations, operation),
    updatedAt: at,
  };
  if (plan.transition === 'CAPTURE') {
    next.capturedValue += plan.value;
    next.surchargeCapturedValue += plan.surchargeValue;
  } else if (plan.transition === 'REFUND') {
    next.refundedValue += plan.value;
    next.surchargeRefundedValue += plan.surchargeValue;
  }
  return next;
}

export function withOperation(operations: PaymentOperation[], operation: PaymentOperation): PaymentOperation[] {
  const i = operations.findIndex((op) => op.xId === operation.xId);
  return i < 0 ? [...operations, operation] : operations.map((op, j) => (j === i ? operation : op));
}

/** The follow-up transition of an operation type. */
export const TRANSITIONS: Partial<Record<OperationType, FollowUpTransition>> = {
  CAPTURE: 'CAPTURE',
  REFUND: 'REFUND',
  REVERSAL: 'REVERSE',
};
