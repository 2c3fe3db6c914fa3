/**
 * Proration of the surcharge over follow-up operations (spec §1.10, DESIGN.md §4 "Follow-ups and surcharge").
 *
 * The merchant names captures and refunds in its own basis (without surcharge); Kassa adds the surcharge share.
 * Rounding rule: the surcharge *running total* is the exact proportional total rounded half up,
 *
 *   surchargeCaptured_k = roundHalfUp(S × captured_k / A)
 *   share_k             = surchargeCaptured_k − surchargeCaptured_{k−1}
 *
 * (S the authorized surcharge, A the authorized amount, captured_k the merchant amount captured after operation k).
 * The shares telescope: their sum is always the rounded running total, so it never drifts, never exceeds S, and is
 * exactly S once captured_k reaches A — the last operation takes the remainder. Refunds use the same rule against
 * what was captured: surchargeRefunded = roundHalfUp(surchargeCaptured × refunded / captured), exactly
 * surchargeCaptured once everything captured is refunded.
 *
 * All values are non-negative integers in ISO 4217 minor units. Products are computed in BigInt, so the result is
 * exact for any amount Kassa accepts (≤ 99 999 999 999, DESIGN.md §4).
 */

/**
 * roundHalfUp(total × part / whole) for non-negative integers, exact (BigInt arithmetic).
 * @throws RangeError when `whole` is not positive or an argument is not a non-negative safe integer.
 */
export function proratedTotal(total: number, part: number, whole: number): number {
  for (const v of [total, part, whole]) {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`proratedTotal: ${v} is not a non-negative integer`);
  }
  if (whole === 0) throw new RangeError('proratedTotal: whole must be positive');
  const numerator = BigInt(total) * BigInt(part);
  const w = BigInt(whole);
  // Half up: floor((2n + w) / 2w) = floor(n/w + 1/2).
  return Number((2n * numerator + w) / (2n * w));
}

/** The surcharge totals of a payment that proration reads. Minor units. */
export interface SurchargeTotals {
  /** The merchant's authorized amount A (without surcharge). */
  authorizedValue: number;
  /** The authorized surcharge S. */
  surchargeValue: number;
  capturedValue: number;
  surchargeCapturedValue: number;
  refundedValue: number;
  surchargeRefundedValue: number;
}

/**
 * The surcharge share of capturing `value` more (merchant basis): roundHalfUp(S × (C + value) / A) − surchargeCaptured.
 * When C + value = A the share is exactly the rest of S.
 * @throws RangeError when the capture would exceed the authorized amount (callers check that first and refuse with
 * CAPTURE_EXCEEDS_AUTHORIZED).
 */
export function captureSurchargeShare(t: SurchargeTotals, value: number): number {
  const captured = t.capturedValue + value;
  if (captured > t.authorizedValue)
    throw new RangeError('captureSurchargeShare: capture exceeds the authorized amount');
  if (t.authorizedValue === 0) return 0;
  // Clamped at 0: the running total is monotone in `captured`, so this only guards totals written by older code.
  return Math.max(0, proratedTotal(t.surchargeValue, captured, t.authorizedValue) - t.surchargeCapturedValue);
}

/**
 * The surcharge share of refunding `value` more (merchant basis):
 * roundHalfUp(surchargeCaptured × (R + value) / C) − surchargeRefunded, never negative. When R + value = C the share
 * is exactly what remains of the captured surcharge. (A capture after refunds changes C; the clamp at 0 keeps the
 * refunded surcharge monotone, and it still never exceeds the captured surcharge.)
 * @throws RangeError when the refund would exceed the captured amount (callers refuse it first with
 * REFUND_EXCEEDS_CAPTURED).
 */
export function refundSurchargeShare(t: SurchargeTotals, value: number): number {
  const refunded = t.refundedValue + value;
  if (refunded > t.capturedValue) throw new RangeError('refundSurchargeShare: refund exceeds the captured amount');
  if (t.capturedValue === 0) return 0;
  const target = proratedTotal(t.surchargeCapturedValue, refunded, t.capturedValue);
  return Math.max(0, target - t.surchargeRefundedValue);
}
