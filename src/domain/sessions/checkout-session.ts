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
  /**
   * COMPLETED once a payment of the session is authorized; FAILED once its card tries are used up (card-testing
   * protection, `MAX_SESSION_CARD_TRIES`); EXPIRED is derived from `expiresAt`.
   */
  status: 'OPEN' | 'COMPLETED' | 'FAILED';
  /** payId of the latest payment started in the session. */
  payId?: string;
  /** Card tries (payments) started in the session so far. */
  cardTries: number;
  expiresAt: Date;
  creationDate: Date;
}

/** What a merchant and the checkout page see of a session. */
export type SessionStatus = 'OPEN' | 'COMPLETED' | 'FAILED' | 'EXPIRED';

/** The status a merchant sees: OPEN, COMPLETED, FAILED, or EXPIRED once `expiresAt` has passed on an open session. */
export function sessionStatus(s: CheckoutSession, now: Date): SessionStatus {
  if (s.status !== 'OPEN') return s.status;
  return now.getTime() >= s.expiresAt.getTime() ? 'EXPIRED' : 'OPEN';
}
