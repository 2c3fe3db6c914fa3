import { type FieldError, KassaError, validationError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import type { Acquirer, AcquirerFollowUpRequest, AcquirerFollowUpResult } from '../ports/acquirer.js';
import type { Clock } from '../ports/clock.js';
import { type IdGenerator, isHexId, newHexId } from '../ports/id-generator.js';
import type { Store } from '../ports/store.js';
import { captureSurchargeShare, refundSurchargeShare, type SurchargeTotals } from '../surcharge/proration.js';
import type { OperationType, Payment, PaymentOperation, PaymentStatus } from './payment.js';
import { enqueuePaymentEvent, type PaymentEventType } from './payment-events.js';
import { FORBIDDEN_FOLLOW_UP_CODES, type FollowUpTransition, nextStatus } from './payment-state-machine.js';
import { responseCodeFromAcquirer } from './response-codes.js';

/** What the follow-up service needs from the outside world (ports) and settings. */
export interface FollowUpServiceDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  acquirer: Acquirer;
  /** Kassa's public https base URL, without a trailing slash (for `_links` in events). */
  publicUrl: string;
}

/**
 * A capture, refund or reversal as the merchant asks for it (DESIGN.md §4 "Follow-ups and surcharge").
 * `amount` is in the merchant's basis: integer minor units, never including surcharge (spec §1.10).
 */
export interface FollowUpCommand {
  /** The merchant's reference of this operation (wire §3): a new one per operation, or the payment's. */
  transId: string;
  /** Required for CAPTURE and REFUND; optional for REVERSE, where it must equal the authorized amount. */
  amount?: { value: number; currency: string };
  /** The merchant's reference of this operation. */
  refNr?: string;
  /** Captures: `true` (wire `finishAuth: "Y"`) makes this the final capture; the uncaptured rest is released. */
  finishAuth?: boolean;
}

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

const OPERATION_TYPES: Record<FollowUpTransition, OperationType> = {
  CAPTURE: 'CAPTURE',
  REFUND: 'REFUND',
  REVERSE: 'REVERSAL',
};

const EVENT_TYPES: Record<FollowUpTransition, PaymentEventType> = {
  CAPTURE: 'payment.captured',
  REFUND: 'payment.refunded',
  REVERSE: 'payment.reversed',
};

function surchargeTotals(p: Payment): SurchargeTotals {
  return {
    authorizedValue: p.value,
    surchargeValue: p.surcharge.value,
    capturedValue: p.capturedValue,
    surchargeCapturedValue: p.surchargeCapturedValue,
    refundedValue: p.refundedValue,
    surchargeRefundedValue: p.surchargeRefundedValue,
  };
}

/**
 * Decides a follow-up on a payment (pure): the state machine edge, the amount limits and the surcharge share.
 * `value` is the merchant-basis amount (undefined for a reversal without amount).
 * @throws KassaError PAYMENT_NOT_CAPTURABLE / PAYMENT_NOT_REFUNDABLE / PAYMENT_NOT_REVERSIBLE (409) for a forbidden
 * edge; CAPTURE_EXCEEDS_AUTHORIZED (409) when value > authorized − captured; REFUND_EXCEEDS_CAPTURED (409) when
 * value > captured − refunded; VALIDATION_FAILED (400) for a missing amount or a reversal amount other than the
 * authorized amount. Source: DESIGN.md §4 "Follow-ups and surcharge".
 */
export function planFollowUp(
  payment: Payment,
  transition: FollowUpTransition,
  value: number | undefined,
): FollowUpPlan {
  const status = nextStatus(payment.status, transition);
  // AUTHORIZED implies nothing captured; the second test guards totals that would contradict the status.
  if (!status || (transition === 'REVERSE' && payment.capturedValue > 0)) {
    throw new KassaError(
      FORBIDDEN_FOLLOW_UP_CODES[transition],
      `payment ${payment.payId} is ${payment.status}${payment.capturedValue > 0 ? ' with money captured' : ''}`,
    );
  }
  const totals = surchargeTotals(payment);
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
    const capturable = payment.value - payment.capturedValue;
    if (value > capturable) {
      throw new KassaError('CAPTURE_EXCEEDS_AUTHORIZED', `at most ${capturable} can still be captured`);
    }
    return { transition, status, value, surchargeValue: captureSurchargeShare(totals, value) };
  }
  const refundable = payment.capturedValue - payment.refundedValue;
  if (value > refundable) {
    throw new KassaError('REFUND_EXCEEDS_CAPTURED', `at most ${refundable} can still be refunded`);
  }
  return { transition, status, value, surchargeValue: refundSurchargeShare(totals, value) };
}

/**
 * The payment after an approved follow-up (pure): new status and totals, and the operation appended.
 * Source of the totals: DESIGN.md §4 "Payment details" (capturedValue / refundedValue per amount and surcharge).
 */
export function applyFollowUp(payment: Payment, plan: FollowUpPlan, operation: PaymentOperation, at: Date): Payment {
  const next: Payment = {
    ...payment,
    status: plan.status,
    operations: [...payment.operations, operation],
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

/**
 * Follow-up operations on a payment: capture, refund, reversal (DESIGN.md §4, spec §1.10). Each runs
 * validate → load (row lock) → decide → call the acquirer → persist result and event, in ONE database transaction:
 * concurrent follow-ups on one payment run one after another, so they can never over-capture or over-refund.
 * The acquirer is called inside the transaction (see README.md beside this file for why, and what a networked
 * acquirer would need instead). A decline is a result: a FAILED operation with its responseCode, totals unchanged.
 */
export class FollowUpService {
  constructor(private readonly deps: FollowUpServiceDeps) {}

  /**
   * Captures `amount` (merchant basis) of an AUTHORIZED or partly captured payment, plus its surcharge share.
   * @throws KassaError PAYMENT_NOT_FOUND, VALIDATION_FAILED (amount.currency), PAYMENT_NOT_CAPTURABLE,
   * CAPTURE_EXCEEDS_AUTHORIZED.
   */
  capture(merchant: Merchant, payId: string, cmd: FollowUpCommand): Promise<FollowUpOutcome> {
    return this.run(merchant, payId, 'CAPTURE', cmd);
  }

  /**
   * Refunds `amount` (merchant basis) of captured money, plus its surcharge share.
   * @throws KassaError PAYMENT_NOT_FOUND, VALIDATION_FAILED, PAYMENT_NOT_REFUNDABLE, REFUND_EXCEEDS_CAPTURED.
   */
  refund(merchant: Merchant, payId: string, cmd: FollowUpCommand): Promise<FollowUpOutcome> {
    return this.run(merchant, payId, 'REFUND', cmd);
  }

  /**
   * Reverses the whole authorization (surcharge included) of an AUTHORIZED payment with nothing captured.
   * @throws KassaError PAYMENT_NOT_FOUND, VALIDATION_FAILED, PAYMENT_NOT_REVERSIBLE.
   */
  reverse(merchant: Merchant, payId: string, cmd: FollowUpCommand): Promise<FollowUpOutcome> {
    return this.run(merchant, payId, 'REVERSE', cmd);
  }

  private async run(
    merchant: Merchant,
    payId: string,
    transition: FollowUpTransition,
    cmd: FollowUpCommand,
  ): Promise<FollowUpOutcome> {
    // validate
    if (!isHexId(payId)) throw new KassaError('PAYMENT_NOT_FOUND', `no payment ${payId}`);
    const { clock, ids, acquirer } = this.deps;
    return this.deps.store.transaction(async (tx) => {
      // load, with the payment row locked until commit
      const payment = await tx.payments.findByPayIdForUpdate(merchant.merchantId, payId);
      if (!payment) throw new KassaError('PAYMENT_NOT_FOUND', `no payment ${payId}`);
      const errors: FieldError[] = [];
      if (cmd.amount && cmd.amount.currency !== payment.currency) {
        errors.push({ field: 'amount.currency', message: `must be the payment currency ${payment.currency}` });
      }
      if (errors.length > 0) throw validationError(errors);

      // decide
      const plan = planFollowUp(payment, transition, cmd.amount?.value);
      const authorization = payment.operations.find((op) => op.type === 'AUTHORIZATION' && op.status === 'OK');
      if (!authorization) throw new Error(`payment ${payId} is ${payment.status} without an OK authorization`);

      // call out
      const request: AcquirerFollowUpRequest = {
        xId: newHexId(ids),
        authorizationXId: authorization.xId,
        payId,
        merchantId: merchant.merchantId,
        value: plan.value + plan.surchargeValue,
        currency: payment.currency,
      };
      const result: AcquirerFollowUpResult =
        transition === 'CAPTURE'
          ? await acquirer.capture(request)
          : transition === 'REFUND'
            ? await acquirer.refund(request)
            : await acquirer.reverse(request);

      // persist result (and its event, in the same transaction)
      const now = clock.now();
      const operation: PaymentOperation = {
        xId: request.xId,
        type: OPERATION_TYPES[transition],
        transId: cmd.transId,
        ...(cmd.refNr !== undefined && { refNr: cmd.refNr }),
        value: plan.value,
        surchargeValue: plan.surchargeValue,
        status: result.outcome === 'APPROVED' ? 'OK' : 'FAILED',
        responseCode: responseCodeFromAcquirer(result.responseCode),
        creationDate: now,
      };
      if (result.outcome === 'DECLINED') {
        const declined: Payment = { ...payment, operations: [...payment.operations, operation], updatedAt: now };
        await tx.payments.update(declined);
        return { payment: declined, operation };
      }
      const updated = applyFollowUp(payment, plan, operation, now);
      await tx.payments.update(updated);
      await enqueuePaymentEvent(tx, this.deps, merchant, updated, EVENT_TYPES[transition]);
      return { payment: updated, operation };
    });
  }
}

/** A follow-up's result: the payment after it, and the operation recorded (status OK, or FAILED on a decline). */
export interface FollowUpOutcome {
  payment: Payment;
  operation: PaymentOperation;
}
