/**
 * Kassa's per-payment 3-D Secure state between the AReq and the final result: where the browser flow stands, what
 * the ARes said (acsTransID, acsURL, version), the CReq to post, the 3DS Method's outcome and the redirect link's
 * nonce and expiry. Stored in the `three_ds_transaction` table (one row per payment).
 */

import type { BrowserInfo, ChallengePreference } from '../payments/payment-request.js';
import type { ChallengeWindowSize } from './authentication-response.js';
import type { MessageVersion } from './three-ds-messages.js';
import type { ThreeDsPolicyIndicators } from './three-ds-server.js';

/**
 * Where a payment's 3-D Secure stands:
 * - METHOD: waiting for the browser to run the 3DS Method page (DIRECT `browserAuthentication: "REDIRECT"`, hosted);
 * - AUTHENTICATING: AReq sent (or authorization running), result not yet stored;
 * - CHALLENGE: browser challenge (C) waiting for the cardholder and the RReq;
 * - APP_CHALLENGE: app challenge (C) waiting for the 3DS SDK and the RReq;
 * - DECOUPLED: decoupled authentication (D) waiting for the RReq;
 * - DONE: the result is in (or the payment ended); nothing more is accepted.
 */
export type ThreeDSPhase = 'METHOD' | 'AUTHENTICATING' | 'CHALLENGE' | 'APP_CHALLENGE' | 'DECOUPLED' | 'DONE';

/**
 * The 3DS Method's state: UNAVAILABLE (the card range has no threeDSMethodURL → threeDSCompInd U), NOT_STARTED,
 * STARTED (page served, callback not yet seen), COMPLETED (the ACS called back → threeDSCompInd Y). STARTED or
 * NOT_STARTED when the AReq is sent means threeDSCompInd N (spec §2.1).
 */
export type ThreeDSMethodStatus = 'UNAVAILABLE' | 'NOT_STARTED' | 'STARTED' | 'COMPLETED';

/** One payment's 3-D Secure state. Times come from the Clock port. */
export interface ThreeDSTransaction {
  /** The payment's payId (32 hex). */
  payId: string;
  merchantId: string;
  phase: ThreeDSPhase;
  /** The ACS's method page (EMVCo cardRangeData.threeDSMethodURL), when the range has one. */
  threeDSMethodURL?: string;
  methodStatus: ThreeDSMethodStatus;
  methodStartedAt?: Date;
  /** The threeDSCompInd the AReq carried, once sent. */
  threeDSCompInd?: 'Y' | 'N' | 'U';
  /** From the ARes. */
  acsTransID?: string;
  dsTransID?: string;
  /** Browser challenge: where the `creq` form is POSTed (EMVCo acsURL). */
  acsURL?: string;
  messageVersion?: MessageVersion;
  challengeWindowSize?: ChallengeWindowSize;
  /** Browser challenge: the `creq` form field (base64url of the spec §2.3 challengeRequest JSON). */
  creq?: string;
  /** What a deferred AReq needs besides the card (the 3DS Method runs first): the merchant's request data. */
  authentication?: {
    challengePreference: ChallengePreference;
    browserInfo?: BrowserInfo;
    /** Paygate's skip (DATA_ONLY) and exemption, for the AReq sent after the 3DS Method. */
    threeDsPolicy?: ThreeDsPolicyIndicators;
  };
  /** ≥ 128-bit random nonce; the redirect token is derived from it (hosted/threeds/three-ds-links.ts, through the PageLinks port), never stored itself. */
  redirectNonce: string;
  /** After this instant every redirect link of the payment is refused and the payment expires. */
  redirectExpiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** Storage of ThreeDSTransaction rows, one per payment. Part of the Store (joins its transactions). */
export interface ThreeDSTransactionRepository {
  /** Inserts or replaces the payment's row. */
  save(transaction: ThreeDSTransaction): Promise<void>;
  /** The row of a payment (any merchant: the 3DS pages and the RReq know only the payId), or undefined. */
  find(payId: string): Promise<ThreeDSTransaction | undefined>;
  /**
   * Moves the row from phase `from` to `to` only if it is still in `from` (compare-and-set), so that two requests
   * (two tabs, a duplicate RReq) cannot both act. @returns true when this call moved it.
   */
  claimPhase(payId: string, from: ThreeDSPhase, to: ThreeDSPhase, at: Date): Promise<boolean>;
  /**
   * Moves the row, if the payment has one, to DONE unless it is DONE already: the payment reached its final state.
   * One write, no read (issue 12: the hot path does not re-read the 3-D Secure record).
   */
  close(payId: string, at: Date): Promise<void>;
  /** Records that the ACS's method page called back (methodStatus COMPLETED) while the row is in phase METHOD. */
  markMethodCompleted(payId: string, at: Date): Promise<boolean>;
  /** Rows waiting for the cardholder or the ACS whose link expired before `now` (oldest first, at most `limit`). */
  findExpired(now: Date, limit: number): Promise<ThreeDSTransaction[]>;
  /**
   * Deletes at most `limit` rows in phase DONE whose redirect link expired before `expiredBefore` (nothing can use
   * them any more: every link and CRes is refused, and the DS stopped retrying its RReq). Rows another node is
   * deleting are skipped. @returns how many it deleted.
   */
  pruneDone(expiredBefore: Date, limit: number): Promise<number>;
}
