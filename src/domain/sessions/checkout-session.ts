import type { Order } from '../../contracts/create-request.js';
import type { CaptureMethod, InformationalFields } from '../payments/payment.js';

/** Default lifetime of a hosted payment page session (DESIGN.md §4: 30 min), in seconds. */
export const DEFAULT_SESSION_TTL_SECONDS = 30 * 60;
/** Bounds of `expiresInSeconds` a merchant may ask for: 5 min to 24 h. */
export const SESSION_TTL_BOUNDS_SECONDS = { min: 5 * 60, max: 24 * 60 * 60 } as const;

/**
 * A hosted payment page session (spec §1.8 (b), §4.3): the merchant's order, shown by Kassa's checkout page, paid
 * through Kassa's card step. Every card try is a new payment under the session's `transId`.
 */
export interface CheckoutSession {
  /** 32 lowercase hex characters. */
  sessionId: string;
  merchantId: string;
  transId: string;
  refNr?: string;
  /** The merchant's amount in minor units of `currency`. */
  value: number;
  currency: string;
  captureMethod: CaptureMethod;
  language?: string;
  /** Paygate's `order`; `items[].grossPrice` etc. in minor units of the session currency. */
  order?: Order;
  customerInfo?: Record<string, unknown>;
  urls: { return: string; cancel: string; webhook?: string; appRedirect?: string };
  metadata?: Record<string, string>;
  /** Stored as sent and echoed (paygate-v2-wire.md §2). */
  informational?: InformationalFields;
  /** COMPLETED once a payment of the session is authorized; EXPIRED is derived from `expiresAt`. */
  status: 'OPEN' | 'COMPLETED';
  /** payId of the latest payment started in the session. */
  payId?: string;
  expiresAt: Date;
  creationDate: Date;
}

/** The status a merchant sees: OPEN, COMPLETED, or EXPIRED once `expiresAt` has passed on an open session. */
export function sessionStatus(s: CheckoutSession, now: Date): 'OPEN' | 'COMPLETED' | 'EXPIRED' {
  if (s.status === 'COMPLETED') return 'COMPLETED';
  return now.getTime() >= s.expiresAt.getTime() ? 'EXPIRED' : 'OPEN';
}
