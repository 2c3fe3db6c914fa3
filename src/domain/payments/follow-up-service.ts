import { type FieldError, KassaError, validationError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import type { Acquirer, AcquirerFollowUpRequest, AcquirerFollowUpResult } from '../ports/acquirer.js';
import type { Clock } from '../ports/clock.js';
import { type IdGenerator, isHexId, newHexId } from '../ports/id-generator.js';
import type { Store } from '../ports/store.js';
import {
  applyFollowUp,
  EVENT_TYPES,
  type FollowUpPlan,
  OPERATION_TYPES,
  planFollowUp,
  TRANSITIONS,
  withOperation,
} from './follow-up-plan.js';
import type { Payment, PaymentOperation } from './payment.js';
import { enqueuePaymentEvent } from './payment-events.js';
import { type FollowUpTransition, nextStatus } from './payment-state-machine.js';
import { responseCodeFromAcquirer } from './response-codes.js';

/** What the follow-up service needs from the outside world (ports) and settings. */
export interface FollowUpServiceDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  acquirer: Acquirer;
  /** Kassa's public https base URL, without a trailing slash (for `_links` in events). */
  publicUrl: string;
  /** Told when a follow-up's outcome is not recorded yet (acquirer transport failure, or the result write failed). */
  onUnknownOutcome?: (xId: string, step: 'acquirer' | 'record', error: unknown) => void;
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
  /**
   * The request's Idempotency-Key, kept with the operation: a request with a key that already created an operation on
   * this payment answers that operation (in its current state) instead of creating another, even once the HTTP
   * layer's stored answer is gone (expired, or its claim abandoned after a failure).
   */
  requestKey?: string;
}

/** Response code of an operation whose acquirer answer is outstanding (status PENDING). */
export const FOLLOW_UP_PENDING_CODE = '60020002';

/**
 * Follow-up operations on a payment: capture, refund, reversal (DESIGN.md §4, spec §1.10), write-ahead (issue 9
 * defect 3; Hyperswitch's validate → load → decide → persist intent → call out → persist result):
 * 1. transaction 1 loads the payment with its row locked, decides (state machine, limits counting PENDING
 *    reservations, surcharge share) and records the operation PENDING with its amount reserved; commit;
 * 2. the acquirer is called outside any transaction with the operation's xId (idempotent at the acquirer);
 * 3. transaction 2 records the result: OK → totals, status and event; FAILED → the reservation is released.
 * When the acquirer call throws (transport failure: outcome unknown) or step 3 fails, the operation stays PENDING
 * and the answer says PENDING, never success; `FollowUpRecovery` (`follow-up-recovery.ts`) resolves it by asking the
 * acquirer. Concurrent follow-ups on one payment are decided one after another under the row lock, so they can never
 * over-capture or over-refund. A decline is a result: a FAILED operation with its responseCode, totals unchanged.
 */
export class FollowUpService {
  constructor(private readonly deps: FollowUpServiceDeps) {}

  /**
   * Captures `amount` (merchant basis) of an AUTHORIZED or partly captured payment, plus its surcharge share.
   * `finishAuth` makes it the final capture: the acquirer releases the uncaptured rest and no capture follows.
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
    const { clock, ids } = this.deps;
    // transaction 1: load (row locked), decide, persist the intent (PENDING, amount reserved)
    const reserved = await this.deps.store.transaction(async (tx) => {
      const payment = await tx.payments.findByPayIdForUpdate(merchant.merchantId, payId);
      if (!payment) throw new KassaError('PAYMENT_NOT_FOUND', `no payment ${payId}`);
      const errors: FieldError[] = [];
      if (cmd.amount && cmd.amount.currency !== payment.currency) {
        errors.push({ field: 'amount.currency', message: `must be the payment currency ${payment.currency}` });
      }
      if (errors.length > 0) throw validationError(errors);
      const earlier = cmd.requestKey !== undefined ? sameRequest(payment, transition, cmd) : undefined;
      if (earlier) return { payment, operation: earlier, repeated: true };
      const plan = planFollowUp(payment, transition, cmd.amount?.value);
      const operation: PaymentOperation = {
        xId: newHexId(ids),
        type: OPERATION_TYPES[transition],
        transId: cmd.transId,
        ...(cmd.refNr !== undefined && { refNr: cmd.refNr }),
        value: plan.value,
        surchargeValue: plan.surchargeValue,
        status: 'PENDING',
        responseCode: FOLLOW_UP_PENDING_CODE,
        creationDate: clock.now(),
        ...(transition === 'CAPTURE' && cmd.finishAuth && { finalCapture: true }),
        ...(cmd.requestKey !== undefined && { requestKey: cmd.requestKey }),
      };
      // Fails here for a payment without an OK authorization (a bug elsewhere), before anything is written.
      acquirerRequest(payment, operation);
      await tx.followUpOperations.reserve(payId, operation);
      return { payment: { ...payment, operations: [...payment.operations, operation] }, operation, repeated: false };
    });
    // The same request again: its operation as it stands (a PENDING one is completed by the recovery sweep).
    if (reserved.repeated) return { payment: reserved.payment, operation: reserved.operation };

    // call out, outside any transaction
    let result: AcquirerFollowUpResult;
    try {
      result = await sendFollowUp(this.deps.acquirer, reserved.payment, reserved.operation);
    } catch (error) {
      this.deps.onUnknownOutcome?.(reserved.operation.xId, 'acquirer', error);
      return reserved;
    }

    // transaction 2: persist the result and its event
    try {
      return await recordFollowUpResult(this.deps, merchant, payId, reserved.operation.xId, result);
    } catch (error) {
      // The acquirer answered but the result is not recorded: the operation is PENDING in the database and the
      // recovery sweep completes it (the acquirer answers the same xId with the same result).
      this.deps.onUnknownOutcome?.(reserved.operation.xId, 'record', error);
      return reserved;
    }
  }
}

/**
 * The operation an earlier request with `cmd.requestKey` created on this payment, if any.
 * @throws KassaError IDEMPOTENCY_KEY_REUSED (422) when that operation is of another kind or amount.
 */
function sameRequest(
  payment: Payment,
  transition: FollowUpTransition,
  cmd: FollowUpCommand,
): PaymentOperation | undefined {
  const earlier = payment.operations.find((op) => op.requestKey === cmd.requestKey);
  if (!earlier) return undefined;
  const sameAmount = cmd.amount === undefined ? transition === 'REVERSE' : cmd.amount.value === earlier.value;
  if (earlier.type !== OPERATION_TYPES[transition] || !sameAmount) {
    throw new KassaError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key created another operation on this payment');
  }
  return earlier;
}

/** The acquirer's request for a follow-up operation. @throws Error when the payment has no OK authorization. */
export function acquirerRequest(payment: Payment, operation: PaymentOperation): AcquirerFollowUpRequest {
  const authorization = payment.operations.find((op) => op.type === 'AUTHORIZATION' && op.status === 'OK');
  if (!authorization) throw new Error(`payment ${payment.payId} is ${payment.status} without an OK authorization`);
  return {
    xId: operation.xId,
    authorizationXId: authorization.xId,
    payId: payment.payId,
    merchantId: payment.merchantId,
    value: operation.value + operation.surchargeValue,
    currency: payment.currency,
    ...(operation.finalCapture && { finalCapture: true }),
  };
}

/** Sends a follow-up operation to the acquirer (idempotent by its xId). Throws on transport failure. */
export function sendFollowUp(
  acquirer: Acquirer,
  payment: Payment,
  operation: PaymentOperation,
): Promise<AcquirerFollowUpResult> {
  const request = acquirerRequest(payment, operation);
  if (operation.type === 'CAPTURE') return acquirer.capture(request);
  if (operation.type === 'REFUND') return acquirer.refund(request);
  return acquirer.reverse(request);
}

/**
 * Transaction 2 of a write-ahead follow-up (also the recovery sweep's last step): with the payment row locked, records
 * the acquirer's answer on the PENDING operation `xId`. APPROVED: status and totals move, the payment.* event is
 * queued in the same transaction, and a scheduled DELAYED capture is cancelled; DECLINED: the operation is FAILED, its
 * reservation released, no event. An operation no longer PENDING (completed by another node) is left as it is.
 * @throws Error when the payment or the operation does not exist (a bug in the caller).
 */
export async function recordFollowUpResult(
  deps: Pick<FollowUpServiceDeps, 'store' | 'clock' | 'ids' | 'publicUrl'>,
  merchant: Merchant,
  payId: string,
  xId: string,
  result: AcquirerFollowUpResult,
): Promise<FollowUpOutcome> {
  return deps.store.transaction(async (tx) => {
    const payment = await tx.payments.findByPayIdForUpdate(merchant.merchantId, payId);
    const pending = payment?.operations.find((op) => op.xId === xId);
    if (!payment || !pending) throw new Error(`no operation ${xId} on payment ${payId}`);
    if (pending.status !== 'PENDING') return { payment, operation: pending };
    const approved = result.outcome === 'APPROVED';
    const operation: PaymentOperation = {
      ...pending,
      status: approved ? 'OK' : 'FAILED',
      responseCode: responseCodeFromAcquirer(result.responseCode),
    };
    await tx.followUpOperations.complete(xId, operation.status === 'OK' ? 'OK' : 'FAILED', operation.responseCode);
    const now = deps.clock.now();
    if (!approved) {
      const declined: Payment = {
        ...payment,
        operations: withOperation(payment.operations, operation),
        updatedAt: now,
      };
      await tx.payments.update(declined);
      return { payment: declined, operation };
    }
    const transition = TRANSITIONS[pending.type];
    const status = transition && nextStatus(payment.status, transition);
    if (!transition || !status) throw new Error(`payment ${payId} is ${payment.status}: ${pending.type} is no edge`);
    const plan: FollowUpPlan = { transition, status, value: pending.value, surchargeValue: pending.surchargeValue };
    const updated = applyFollowUp(payment, plan, operation, now);
    await tx.payments.update(updated);
    // A DELAYED payment captured or reversed before its time is not captured automatically any more.
    if (transition !== 'REFUND' && updated.captureMethod === 'DELAYED') {
      await tx.followUpOperations.scheduleCapture(payId, undefined);
    }
    await enqueuePaymentEvent(tx, deps, merchant, updated, EVENT_TYPES[transition]);
    return { payment: updated, operation };
  });
}

/**
 * A follow-up's result: the payment after it, and the operation recorded (status OK; FAILED on a decline; PENDING
 * when the acquirer's answer is not known or not recorded yet).
 */
export interface FollowUpOutcome {
  payment: Payment;
  operation: PaymentOperation;
}
