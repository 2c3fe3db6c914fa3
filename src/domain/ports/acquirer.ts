import type { CardBrand } from './bin-table.js';
import type { CallOptions } from './deadline.js';

/** What the acquirer needs to authorize a card payment. Amounts are integer minor units. */
export interface AcquirerAuthorizationRequest {
  /** Kassa's operation id (xId) of this authorization; the acquirer echoes it. */
  xId: string;
  payId: string;
  merchantId: string;
  pan: string;
  /** YYYYMM. */
  expiryDate: string;
  securityCode?: string;
  brand: CardBrand;
  /** Minor units of `currency`, surcharge included. */
  value: number;
  currency: string;
  /** true: authorize and capture in one message (sale); false: authorization only. */
  capture: boolean;
  /**
   * The text for the cardholder's statement (Paygate `statementDescriptor`, paygate-v2-wire.md §2): the soft
   * descriptor the acquirer passes to the network.
   */
  statementDescriptor?: string;
  /**
   * An SCA exemption the merchant asks the acquirer to apply (Paygate `paymentMethods.card.threeDsPolicy.exemption`
   * reason: TRANSACTION_RISK_ANALYSIS, LOW_VALUE, …), flagged in the authorization as PSD2 acquirer exemptions are.
   */
  exemption?: string;
  /** 3-D Secure data passed on to the issuer, when authentication took place. */
  threeDS?: { transStatus: string; eci?: string; authenticationValue?: string; dsTransID: string };
  /**
   * The stored-credential framework data (Visa Stored Credential Framework, Mastercard Standards for
   * credential-on-file): absent for a payment that neither stores nor uses a stored card.
   */
  storedCredential?: StoredCredentialIndicator;
}

/**
 * How an authorization relates to a stored credential, as the schemes' stored-credential frameworks require it.
 * - `initiator` CARDHOLDER (CIT) or MERCHANT (MIT);
 * - `sequence` INITIAL (the first payment, which stores the card) or SUBSEQUENT (one made with the stored card);
 * - `schemeReferenceId`: for a SUBSEQUENT merchant-initiated payment the network's transaction id of the initial
 *   payment (Visa Transaction Identifier, Mastercard Trace ID); the network refuses an MIT without a valid one.
 */
export interface StoredCredentialIndicator {
  type: 'RECURRING' | 'UNSCHEDULED' | 'INSTALLMENTS';
  initiator: 'CARDHOLDER' | 'MERCHANT';
  sequence: 'INITIAL' | 'SUBSEQUENT';
  schemeReferenceId?: string;
}

/**
 * Result of an authorization. A decline is a result, not an error.
 * `responseCode` is the ISO 8583 field 39 style code of the acquirer ("00" approved, "51" insufficient funds,
 * "05" do not honor, ...); Kassa maps it to its own 8-digit catalogue.
 */
export type AcquirerAuthorizationResult =
  | {
      outcome: 'APPROVED';
      authorizationCode: string;
      acquirerReference: string;
      responseCode: '00';
      /**
       * The card network's id of this transaction (Visa: 15-digit Transaction Identifier; Mastercard: Trace ID),
       * when the network gives one. The initial payment's id is what later merchant-initiated payments must carry.
       */
      schemeReferenceId?: string;
    }
  | {
      outcome: 'DECLINED';
      acquirerReference: string;
      responseCode: string;
      message: string;
      /**
       * Mastercard Merchant Advice Code (DE 48 SE 84), when the issuer gave one: `21` payment cancellation (the
       * cardholder or issuer stopped the stored credential), `03` do not try again, …
       */
      merchantAdviceCode?: string;
    };

/**
 * What the acquirer's status lookup knows of the authorization sent for a payment (Acquirer.inquireAuthorization).
 */
export interface AcquirerAuthorizationInquiry {
  /** The xId the authorization was sent with (Kassa's AUTHORIZATION operation; follow-ups name it). */
  xId: string;
  /** true: it was a sale, authorized and captured in one message (AcquirerAuthorizationRequest.capture). */
  captured: boolean;
  result: AcquirerAuthorizationResult;
}

/**
 * A follow-up on an earlier authorization (capture, refund, reversal). The acquirer finds the authorization by
 * `authorizationXId`; Kassa never keeps the card number, so none is sent. Amounts are integer minor units.
 */
export interface AcquirerFollowUpRequest {
  /** Kassa's operation id (xId) of this follow-up; the acquirer echoes it. */
  xId: string;
  /** The xId of the payment's AUTHORIZATION operation. */
  authorizationXId: string;
  payId: string;
  merchantId: string;
  /** Minor units of `currency`, surcharge share included (what actually moves). */
  value: number;
  currency: string;
  /** CAPTURE only: the final capture of the authorization (Paygate `finishAuth: "Y"`); the acquirer releases the rest. */
  finalCapture?: boolean;
}

/** Result of a follow-up: a decline is a result, not an error. `responseCode` as in AcquirerAuthorizationResult. */
export type AcquirerFollowUpResult =
  | { outcome: 'APPROVED'; acquirerReference: string; responseCode: '00' }
  | { outcome: 'DECLINED'; acquirerReference: string; responseCode: string; message: string };

/**
 * How one acquirer call is made. `signal`: aborted when Kassa stops waiting for the answer (DeadlineAcquirer's
 * deadline), its `reason` the AcquirerTimeoutError. An adapter that sees it aborted before sending sends nothing and
 * throws; once sent, it gives the request up (the message may still have reached the acquirer: the outcome is unknown,
 * which the status lookups resolve).
 */
export type AcquirerCallOptions = CallOptions;

/**
 * The acquirer (card processor). Implemented by `SimulatorAcquirer`, which picks outcomes by test card.
 * Every method throws only on transport failure (network error, timeout): the outcome is then unknown. Kassa holds
 * every call to a deadline (DeadlineAcquirer, ACQUIRER_TIMEOUT_MS = 20 s) inside the recovery sweeps' pending ages
 * (follow-ups 30 s, authorizations 2 min): a call still waiting past them could meet the sweep's own lookup, which
 * takes a message not received yet for one that never came. At the deadline Kassa aborts the call's `signal`
 * (AcquirerCallOptions): an adapter passes it to its HTTP client (undici, fetch) so the request and its socket are
 * given up, and drops the answer; one that ignores it has its late answer dropped by Kassa.
 * Follow-ups are idempotent by `xId`, as a real acquirer's idempotency key (Stripe `Idempotency-Key`, Adyen
 * `Idempotency-Key`, ISO 8583 retransmission by STAN/RRN): sending the same xId again answers the first result and
 * never moves money twice. Kassa relies on that to resolve a follow-up whose answer it never received.
 */
export interface Acquirer {
  /** Authorizes (and with `capture` also captures) an amount. Throws only on transport failure. */
  authorize(request: AcquirerAuthorizationRequest, options?: AcquirerCallOptions): Promise<AcquirerAuthorizationResult>;
  /** Captures (part of) an authorization. */
  capture(request: AcquirerFollowUpRequest, options?: AcquirerCallOptions): Promise<AcquirerFollowUpResult>;
  /** Refunds (part of) captured money. */
  refund(request: AcquirerFollowUpRequest, options?: AcquirerCallOptions): Promise<AcquirerFollowUpResult>;
  /** Reverses (cancels) a whole uncaptured authorization, releasing the cardholder's funds. */
  reverse(request: AcquirerFollowUpRequest, options?: AcquirerCallOptions): Promise<AcquirerFollowUpResult>;
  /**
   * The result of the follow-up sent with `xId` (the acquirer's transaction status lookup), or undefined when the
   * acquirer never received it. Throws only on transport failure.
   */
  inquire(xId: string, options?: AcquirerCallOptions): Promise<AcquirerFollowUpResult | undefined>;
  /**
   * The authorization sent for `payId` and its result (the acquirer's transaction status lookup by the merchant's
   * reference, which Kassa sends as `payId`), or undefined when the acquirer never received one. Kassa asks it for a
   * payment whose authorization's answer it never recorded (AuthorizationRecovery). Throws only on transport failure.
   */
  inquireAuthorization(payId: string, options?: AcquirerCallOptions): Promise<AcquirerAuthorizationInquiry | undefined>;
}
