import type {
  BillingAddress,
  CardTemplate,
  CredentialOnFile,
  Device,
  FraudData,
  PaymentFacilitator,
  Shipping,
  Template,
  ThreeDsPolicy,
  CaptureMethod as WireCaptureMethod,
} from '../../contracts/create-request.js';
import type { CardBrand, CardFunding, CardProduct } from '../ports/bin-table.js';
import type { MessageVersion, TransStatus } from '../threeds/three-ds-messages.js';

/** Payment status (DESIGN.md §4 "Payment details"). */
export type PaymentStatus = 'PENDING' | 'AUTHORIZED' | 'OK' | 'FAILED' | 'REVERSED';
/** DELAYED: authorized like MANUAL, captured automatically after `captureMethod.delayed.delayedHours`. */
export type CaptureMethod = 'AUTOMATIC' | 'MANUAL' | 'DELAYED';
export type IntegrationType = 'DIRECT' | 'HOSTED';
/**
 * Paygate's `channel` (paygate-v2-wire.md §2): ECOM, PAYBYLINK and POS run the 3DS browser flow, APP the 3DS SDK flow,
 * MOTO is out of SCA scope.
 */
export type Channel = 'ECOM' | 'MOTO' | 'APP' | 'PAYBYLINK' | 'POS';

/** The EMV 3DS device channel of a payment channel: APP → 01 (app), every other → 02 (browser). */
export function deviceChannelOf(channel: Channel): 'BROWSER' | 'APP' {
  return channel === 'APP' ? 'APP' : 'BROWSER';
}

/**
 * The informational create-request fields Kassa stores as sent and echoes in the payment details
 * (paygate-v2-wire.md §2, §4), in the contract's types. `browserInfo.timeZoneOffset` is kept as a string of minutes.
 * Never card data: `paymentMethods.card.prefillInfo` is not part of it.
 */
export interface InformationalFields {
  externalIntegrationId?: string;
  requestId?: string;
  statementDescriptor?: string;
  simulationMode?: string;
  remittanceInfo?: string;
  referencePayId?: string;
  allowedPaymentMethod?: string[];
  partialPayment?: boolean;
  /** RFC 3339. */
  expirationTime?: string;
  /** `amount.taxTotal`, `netItemTotal`, … in minor units. */
  amountTotals?: {
    taxTotal?: number;
    netItemTotal?: number;
    netShippingAmount?: number;
    grossShippingAmount?: number;
    netDiscount?: number;
    grossDiscount?: number;
  };
  captureMethod?: WireCaptureMethod;
  template?: Template;
  credentialOnFile?: CredentialOnFile;
  billingAddress?: BillingAddress;
  shipping?: Shipping;
  fraudData?: FraudData;
  paymentFacilitator?: PaymentFacilitator;
  device?: Device;
  browserInfo?: Record<string, unknown>;
  /**
   * `paymentMethods.card` of a HOSTED payment or session: allowed brands, form look, event token; and, kept for
   * Kassa's own pages (not echoed), the 3-D Secure policy the hosted confirmation honours and the card step's prefill
   * (never the number nor the security code).
   */
  card?: {
    subType?: string[];
    template?: CardTemplate;
    eventToken?: string;
    threeDsPolicy?: HostedThreeDsPolicy;
    prefill?: HostedPrefill;
  };
}
/** `paymentMethods.card.threeDsPolicy` of a HOSTED payment or session, as its confirmation applies it (EMV 3DS 2.2). */
export type HostedThreeDsPolicy = Pick<ThreeDsPolicy, 'challengePreference' | 'skip' | 'exemption'>;

/** What the hosted card step prefills from `paymentMethods.card.prefillInfo`: never the number or security code. */
export interface HostedPrefill {
  cardholderName?: string;
  /** YYYYMM. */
  expiryDate?: string;
}

export type OperationType = 'AUTHORIZATION' | 'CAPTURE' | 'REFUND' | 'REVERSAL';

/** Why a payment was or was not surcharged (DESIGN.md §4, §7). */
export type SurchargeReason =
  | 'COMMERCIAL_CARD'
  | 'NON_EEA_CARD'
  | 'DISABLED'
  | 'CARD_NOT_ELIGIBLE'
  | 'COUNTRY_NOT_SUPPORTED'
  | 'CARD_UNKNOWN'
  | 'CURRENCY_NOT_SUPPORTED'
  | 'DIRECT_INTEGRATION';

/** The surcharge decision of a payment. Values in minor units of the payment currency. */
export interface Surcharge {
  status: 'APPLIED' | 'NOT_OFFERED';
  reason: SurchargeReason;
  value: number;
}

/**
 * The cardholder's consent on the hosted review step (DESIGN.md §7, spec §1.9): when, and the amounts shown, in minor
 * units of the payment currency. Kept with the payment as evidence of what the cardholder agreed to.
 */
export interface SurchargeConsent {
  consentedAt: Date;
  value: number;
  surchargeValue: number;
  totalValue: number;
  currency: string;
  /** The language the page was shown in. */
  language: string;
}

/** What Kassa keeps of a card: never the full number (PAN) nor the security code. */
export interface CardSummary {
  brand: CardBrand;
  /** First 8 digits (6 for a 6-digit BIN range). */
  bin: string;
  last4: string;
  /** YYYYMM. */
  expiryDate: string;
  product?: CardProduct;
  funding?: CardFunding;
  /** ISO 3166-1 alpha-2. */
  issuerCountry?: string;
  cardholderName?: string;
  /** HMAC-SHA256 of the PAN under the data key: lets the same card be recognised without storing it. */
  fingerprint: string;
  /**
   * The stored card's pseudo card number (docs/stored-credentials.md): set when this payment stored the card
   * (initial `credentialOnFile` payment, once approved) or was paid with it.
   */
  pseudoCardNumber?: string;
  /** The card network's id of this payment's authorization (Visa Transaction Identifier, Mastercard Trace ID). */
  schemeReferenceId?: string;
}

/** Outcome of 3-D Secure authentication kept with the payment (from the ARes, or the RReq after a challenge). */
export interface ThreeDSResult {
  threeDSServerTransID: string;
  messageVersion: MessageVersion;
  transStatus: TransStatus;
  transStatusReason?: string;
  eci?: string;
  authenticationValue?: string;
  acsTransID?: string;
  dsTransID?: string;
  /** Y/A give the merchant liability shift; U/I do not. */
  liabilityShift: boolean;
  /**
   * The ARes's `cardholderInfo` (EMV 3DS: issuer text the 3DS Requestor must show the cardholder, e.g. how to approve
   * a decoupled authentication); Kassa's hosted waiting page shows it.
   */
  cardholderInfo?: string;
  /**
   * What else the ARes said, kept for the details' `authenticationData` (Paygate wire §4), each absent when the ACS
   * did not send it and on payments stored before it was kept: EMVCo acsChallengeMandated and acsDecConInd (Y/N as
   * booleans; acsChallengeMandated false when the ACS did not send it, as in the notification), authenticationType (01 static, 02 dynamic, 03 oob, 04 decoupled; the RReq's when it carries one),
   * acsOperatorID, acsReferenceNumber, dsReferenceNumber, sdkTransID (app channel), whiteListStatus and
   * whiteListStatusSource (2.2.0+; the RReq's when it carries them).
   */
  acsChallengeMandated?: boolean;
  acsDecConInd?: boolean;
  authenticationType?: '01' | '02' | '03' | '04';
  acsOperatorID?: string;
  acsReferenceNumber?: string;
  dsReferenceNumber?: string;
  sdkTransID?: string;
  whiteListStatus?: 'Y' | 'N' | 'E' | 'P' | 'R' | 'U';
  whiteListStatusSource?: '01' | '02' | '03';
  /** The message the result was last taken from: the ARes, or the RReq after a challenge or decoupled authentication. */
  messageType?: 'ARes' | 'RReq';
}

/** One operation on a payment, identified by its xId. Values in minor units. */
export interface PaymentOperation {
  xId: string;
  type: OperationType;
  refNr?: string;
  /** The merchant's reference of this operation (wire §3: need not equal the payment's transId). */
  transId?: string;
  /** The merchant's own amount of this operation. */
  value: number;
  /** The surcharge share of this operation. */
  surchargeValue: number;
  /**
   * OK or FAILED once the acquirer answered; PENDING while its answer is outstanding (a write-ahead follow-up,
   * `follow-up-service.ts`): the amount is reserved against the limits until the recovery sweep completes it.
   */
  status: OperationStatus;
  responseCode: string;
  creationDate: Date;
  /** CAPTURE only: sent as the final capture (Paygate `finishAuth: "Y"`); the uncaptured rest is released. */
  finalCapture?: boolean;
  /** Follow-ups: the merchant's Idempotency-Key of the request that created it (never shown in the details). */
  requestKey?: string;
}

/** The status of one operation (paygate-v2-wire.md §3: the follow-up answer's `status`). */
export type OperationStatus = 'OK' | 'FAILED' | 'PENDING';

/** A card payment (the payment aggregate). Amounts are integer minor units of `currency`. */
export interface Payment {
  /** 32 lowercase hex characters: a UUID v4 without dashes (DESIGN.md §4). */
  payId: string;
  merchantId: string;
  /** The merchant's id of the payment (1–64 characters). */
  transId: string;
  refNr?: string;
  status: PaymentStatus;
  /** 8-digit response code from the catalogue (`response-codes.ts`). */
  responseCode: string;
  currency: string;
  /** The merchant's amount, without surcharge. */
  value: number;
  capturedValue: number;
  refundedValue: number;
  surcharge: Surcharge;
  surchargeCapturedValue: number;
  surchargeRefundedValue: number;
  captureMethod: CaptureMethod;
  integrationType: IntegrationType;
  channel: Channel;
  language?: string;
  card?: CardSummary;
  threeDS?: ThreeDSResult;
  order?: Record<string, unknown>;
  customerInfo?: Record<string, unknown>;
  urls?: { return?: string; cancel?: string; webhook?: string; appRedirect?: string };
  metadata?: Record<string, string>;
  /** Stored as sent, echoed in the details. */
  informational?: InformationalFields;
  /** The hosted payment page session the payment was started in. */
  sessionId?: string;
  surchargeConsent?: SurchargeConsent;
  operations: PaymentOperation[];
  creationDate: Date;
  updatedAt: Date;
  /**
   * Transient, never stored: while the payment waits for the cardholder's browser (3DS Method or challenge), the
   * Kassa page to send the browser to (`_links.redirect.href`). Filled by PaymentService from the stored 3-D Secure
   * state on create and on reads.
   */
  redirectHref?: string;
}

/** The payId of a payment whose 3DS transaction id is `uuid` (DESIGN.md §4: the same UUID without dashes). */
export function payIdFromUuid(uuid: string): string {
  return uuid.replaceAll('-', '').toLowerCase();
}

/** The canonical RFC 4122 form of a payId, used as threeDSServerTransID (spec §2.1). */
export function uuidFromPayId(payId: string): string {
  return `${payId.slice(0, 8)}-${payId.slice(8, 12)}-${payId.slice(12, 16)}-${payId.slice(16, 20)}-${payId.slice(20)}`;
}
