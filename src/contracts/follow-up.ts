import { type Static, Type } from 'typebox';
import { Order } from './create-request.js';
import { PaymentDetails, ResponseCode } from './payment-details.js';
import { AmountValue, Currency, closed, DateTime, Metadata, Minor, PayId, RefNr, TransId } from './primitives.js';

/**
 * Follow-ups: `POST /payments/{payId}/captures | refunds | reversals` (`paygate-v2-wire.md` §3). `amount` is in the
 * merchant's basis, without surcharge (spec §1.10); Kassa adds the proportional surcharge share itself.
 */

const O = Type.Optional;

/** `amount{value, currency}` of a follow-up: value an integer or a digits-only string. */
export const FollowUpAmount = Type.Object({ value: AmountValue, currency: Currency }, closed);

const members = {
  transId: TransId,
  refNr: O(RefNr),
  order: O(Order),
  metadata: O(Metadata),
};

/** Body of a capture. `finishAuth: "Y"`: the final capture; the uncaptured rest of the authorization is released. */
export const CaptureRequest = Type.Object(
  { ...members, amount: FollowUpAmount, finishAuth: O(Type.Enum(['Y', 'N'])) },
  closed,
);
export type CaptureRequest = Static<typeof CaptureRequest>;

/** Body of a refund. */
export const RefundRequest = Type.Object({ ...members, amount: FollowUpAmount }, closed);
export type RefundRequest = Static<typeof RefundRequest>;

/** Body of a reversal: `amount`, when given, must be the whole authorized amount. */
export const ReversalRequest = Type.Object({ ...members, amount: O(FollowUpAmount) }, closed);
export type ReversalRequest = Static<typeof ReversalRequest>;

/**
 * The answer of a follow-up: the **operation's** result, Paygate-style (wire §3): its `xId`, the merchant's `transId`
 * of it, its `status` (OK, FAILED or PENDING) and `responseCode`, its amount, binding surcharge share and total in
 * minor units, and `payment`: the updated payment details.
 */
export const FollowUpResponse = Type.Object({
  payId: PayId,
  xId: Type.String(),
  transId: Type.String(),
  refNr: O(Type.String()),
  merchantId: Type.String(),
  type: Type.Enum(['CAPTURE', 'REFUND', 'REVERSAL']),
  status: Type.Enum(['OK', 'FAILED', 'PENDING']),
  responseCode: ResponseCode,
  responseDescription: Type.String(),
  amount: Type.Object({ value: Minor, currency: Currency }),
  surcharge: Type.Object({ value: Minor, currency: Currency }),
  totalAmount: Type.Object({ value: Minor, currency: Currency }),
  creationDate: DateTime,
  payment: PaymentDetails,
});
export type FollowUpResponse = Static<typeof FollowUpResponse>;
