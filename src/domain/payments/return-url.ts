import type { Payment } from './payment.js';

/** Whether the cardholder ended the payment: cancelled the 3-D Secure challenge (20010003) or the hosted page (20040002). */
export function isCancelledByCardholder(payment: Payment): boolean {
  return payment.responseCode === '20010003' || payment.responseCode === '20040002';
}

/**
 * A declined (not cancelled) try inside a hosted payment page session: while the session is open, the cardholder may
 * try another card under the same transId (DESIGN.md §4).
 */
export function mayRetryInSession(payment: Payment): boolean {
  return payment.sessionId !== undefined && payment.status === 'FAILED' && !isCancelledByCardholder(payment);
}

/**
 * Where the cardholder's browser goes when a payment's 3-D Secure pages are done (DESIGN.md §4): urls.cancel after
 * a challenge (20010003) or hosted payment (20040002) the cardholder cancelled, when the merchant gave one, else
 * urls.return; `PayID=<payId>` appended (paygate-v2-wire.md §6: the official plugins read `PayID`, case-sensitive). Undefined when the merchant gave neither (the page then shows the outcome itself).
 */
export function returnUrlOf(payment: Payment): string | undefined {
  const target = isCancelledByCardholder(payment)
    ? (payment.urls?.cancel ?? payment.urls?.return)
    : payment.urls?.return;
  if (target === undefined) return undefined;
  const url = new URL(target);
  url.searchParams.set('PayID', payment.payId);
  return url.toString();
}
