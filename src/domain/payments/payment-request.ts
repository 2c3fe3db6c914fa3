import type { Order, PrefillInfo, ThreeDsPolicy } from '../../contracts/create-request.js';
import type { CaptureMethod, Channel, InformationalFields, IntegrationType } from './payment.js';

/** The cardholder's browser, as the merchant reports it for a DIRECT browser flow (DESIGN.md §4). */
export interface BrowserInfo {
  acceptHeaders: string;
  ipAddress?: string;
  /** EMVCo browserJavaEnabled. */
  javaEnabled?: boolean;
  javaScriptEnabled: boolean;
  /** IETF BCP 47 language tag, e.g. "da-DK". */
  language: string;
  /** Bits per pixel: 1, 4, 8, 15, 16, 24, 32 or 48 (EMVCo browserColorDepth). */
  colorDepth?: number;
  /** Pixels. */
  screenHeight?: number;
  /** Pixels. */
  screenWidth?: number;
  /** Minutes, as JavaScript's Date#getTimezoneOffset (UTC − local). */
  timeZoneOffset?: number;
  userAgent: string;
  /** EMVCo challengeWindowSize 01–05. */
  challengeWindowSize?: '01' | '02' | '03' | '04' | '05';
}

/** The 3DS SDK's data for a DIRECT app flow (`channel: "APP"`), EMVCo sdk* fields. */
export interface SdkInfo {
  sdkTransID: string;
  sdkAppID: string;
  /** EC P-256 public key as a JWK object. */
  sdkEphemPubKey: Record<string, unknown>;
  sdkReferenceNumber: string;
  /** Minutes (EMVCo sdkMaxTimeout), at least 5. */
  sdkMaxTimeout: number;
}

/** The merchant's challenge preference (maps to EMVCo threeDSRequestorChallengeInd 01–04). */
export type ChallengePreference = 'NO_PREFERENCE' | 'NO_CHALLENGE' | 'REQUEST_CHALLENGE' | 'MANDATE_CHALLENGE';

/** Card data of a DIRECT payment. Held in memory only for the request; never stored or logged. */
export interface CardInput {
  number: string;
  /** YYYYMM. */
  expiryDate: string;
  securityCode?: string;
  cardholderName?: string;
  /** The brand the merchant named (`paymentMethods.card.brand`), informational. */
  brand?: string;
}

/** A validated request to create a payment (`POST /api/v1/payments`). Amounts in minor units. */
export interface CreatePaymentCommand {
  merchantId: string;
  transId: string;
  refNr?: string;
  amount: { value: number; currency: string };
  captureMethod: CaptureMethod;
  integrationType: IntegrationType;
  channel: Channel;
  language?: string;
  card?: CardInput;
  challengePreference: ChallengePreference;
  /** Paygate's `skip` and `exemption` of `paymentMethods.card.threeDsPolicy` (EMV 3DS 2.2 indicators). */
  threeDsPolicy?: Pick<ThreeDsPolicy, 'skip' | 'exemption'>;
  /** `captureMethod.delayed.delayedHours` of a DELAYED capture (1–696). */
  delayedHours?: number;
  /** RFC 3339 `expirationTime`: when a HOSTED link expires. */
  expirationTime?: string;
  /**
   * HOSTED: `paymentMethods.card.prefillInfo`, held in memory for the card step; never stored as sent (it may hold a
   * card number).
   */
  prefillInfo?: PrefillInfo;
  /** Stored as sent and echoed in the details (`statementDescriptor` also goes to the acquirer). */
  informational?: InformationalFields;
  /**
   * DIRECT browser payments only (`threeDsPolicy.browserAuthentication`): SYNCHRONOUS (default) sends the AReq
   * during the create call; REDIRECT answers PENDING with `_links.redirect.href` to Kassa's 3DS Method page, which
   * runs the method in the cardholder's browser before the AReq (docs/3ds.md).
   */
  browserAuthentication?: 'SYNCHRONOUS' | 'REDIRECT';
  browserInfo?: BrowserInfo;
  sdkInfo?: SdkInfo;
  order?: Order;
  customerInfo?: Record<string, unknown>;
  urls?: { return?: string; cancel?: string; webhook?: string; appRedirect?: string };
  metadata?: Record<string, string>;
}
