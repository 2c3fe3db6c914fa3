import { type Static, Type } from 'typebox';
import { PaymentDetails } from './payment-details.js';

/** The payment events a merchant's webhook receives (`docs/notifications.md`). */
export const PAYMENT_EVENT_TYPES = [
  'payment.authorized',
  'payment.failed',
  'payment.captured',
  'payment.refunded',
  'payment.reversed',
] as const;

/**
 * Body of a `payment.*` notification: `type` and the payment details at the top level, so a client decoding Paygate's
 * webhook (`payId, transId, status, responseCode, responseDescription, amount, paymentMethods{type}, creationDate`,
 * wire §6) reads it unchanged.
 */
export const PaymentEvent = Type.Object({ type: Type.Enum([...PAYMENT_EVENT_TYPES]), ...PaymentDetails.properties });
export type PaymentEvent = Static<typeof PaymentEvent>;
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];
