import type { Merchant } from '../merchants/merchant.js';
import type { Store } from '../ports/store.js';
import { delayedCaptureDueAt } from './delayed-capture.js';
import type { Payment, PaymentOperation } from './payment.js';
import type { PaymentServiceDeps } from './payment-deps.js';
import { enqueuePaymentEvent } from './payment-events.js';
import { nextStatus, type PaymentTransition } from './payment-state-machine.js';

/** What ending a payment needs: a subset of PaymentServiceDeps, which the hosted service has too. */
export type FinishPaymentDeps = Pick<PaymentServiceDeps, 'store' | 'clock' | 'ids' | 'publicUrl'> &
  Partial<Pick<PaymentServiceDeps, 'onPaymentFinal'>>;

/**
 * The final state of a PENDING payment, decided by the state machine (`payment-state-machine.ts`): responseCode
 * 00000000 is AUTHORIZE_AND_CAPTURE (→ OK) for AUTOMATIC capture, else AUTHORIZE (→ AUTHORIZED); any other code is
 * FAIL (→ FAILED). Written with its payment.* event and the 3-D Secure state closed, through `tx`, so that the caller's
 * transaction commits them together.
 * @throws Error when the payment is not PENDING (the edge does not exist): a bug in the caller.
 */
export async function recordFinalPayment(
  tx: Store,
  deps: FinishPaymentDeps,
  merchant: Merchant,
  payment: Payment,
  responseCode: string,
  operations: PaymentOperation[],
): Promise<Payment> {
  const ok = responseCode === '00000000';
  const transition: PaymentTransition = !ok
    ? 'FAIL'
    : payment.captureMethod === 'AUTOMATIC'
      ? 'AUTHORIZE_AND_CAPTURE'
      : 'AUTHORIZE';
  const status = nextStatus(payment.status, transition);
  if (status === undefined) throw new Error(`payment ${payment.payId} is ${payment.status}: ${transition} is no edge`);
  const { redirectHref: _transient, ...final }: Payment = {
    ...payment,
    status,
    responseCode,
    operations: [...payment.operations, ...operations],
    updatedAt: deps.clock.now(),
  };
  await tx.payments.update(final);
  // DELAYED: authorized like MANUAL and captured automatically later (FollowUpRecovery.captureDue).
  const captureDueAt = status === 'AUTHORIZED' ? delayedCaptureDueAt(final, final.updatedAt) : undefined;
  if (captureDueAt) await tx.followUpOperations.scheduleCapture(final.payId, captureDueAt);
  await tx.threeDSTransactions.close(final.payId, final.updatedAt);
  // The card kept for 3-D Secure (if any) goes with the same commit: a final payment never keeps one.
  await tx.pendingCards.delete(final.payId);
  await enqueuePaymentEvent(tx, deps, merchant, final, ok ? 'payment.authorized' : 'payment.failed');
  return final;
}

/**
 * Ends a PENDING payment (see recordFinalPayment: its vaulted card, no longer needed once the payment is authorized or
 * failed, is deleted in the same transaction) in its own transaction and reports it to `onPaymentFinal`. The one way every payment
 * operation — authorization, 3-D Secure failures, the results handler, the expiry sweeps, a hosted cancel — ends a
 * payment.
 */
export async function finishPayment(
  deps: FinishPaymentDeps,
  merchant: Merchant,
  payment: Payment,
  responseCode: string,
  operations: PaymentOperation[] = [],
  alongside?: (tx: Store) => Promise<void>,
): Promise<Payment> {
  const final = await deps.store.transaction(async (tx) => {
    await alongside?.(tx);
    return recordFinalPayment(tx, deps, merchant, payment, responseCode, operations);
  });
  deps.onPaymentFinal?.(final);
  return final;
}
