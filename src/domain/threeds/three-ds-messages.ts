/**
 * EMV 3-D Secure 2 protocol messages as Kassa (the 3DS Server) exchanges them with a directory server (DS).
 * Field names and codes are EMVCo's (EMV 3DS Protocol and Core Functions Specification, tables A.1/B).
 * Only the fields Kassa sends or reads are typed; a real DS adapter may carry more.
 */

import type { ThreeDSRequestorAuthenticationInd } from './stored-credential-fields.js';

/** Protocol versions Kassa supports, lowest first (DESIGN.md §6). */
export const SUPPORTED_MESSAGE_VERSIONS = ['2.1.0', '2.2.0', '2.3.1'] as const;
export type MessageVersion = (typeof SUPPORTED_MESSAGE_VERSIONS)[number];

/** EMVCo transStatus (spec §3). */
export type TransStatus = 'Y' | 'N' | 'U' | 'A' | 'C' | 'D' | 'R' | 'I';

/** EMVCo deviceChannel: 01 = app-based, 02 = browser-based. */
export type DeviceChannel = '01' | '02';

/**
 * EMVCo threeDSRequestorChallengeInd (EMV 3DS 2.2): 01 no preference, 02 no challenge requested, 03 challenge
 * requested (requestor preference), 04 challenge requested (mandate), 05 no challenge requested (transactional risk
 * analysis already performed), 06 no challenge requested (data share only), 07 no challenge requested (strong
 * consumer authentication already performed), 08 no challenge requested (utilise whitelist exemption), 09 challenge
 * requested (whitelist prompt requested).
 */
export type ThreeDSRequestorChallengeInd = '01' | '02' | '03' | '04' | '05' | '06' | '07' | '08' | '09';

/** Browser data of an AReq for deviceChannel 02 (EMVCo browser* fields). */
export interface AReqBrowserData {
  browserAcceptHeader: string;
  browserIP?: string;
  browserJavaEnabled?: boolean;
  browserJavascriptEnabled: boolean;
  browserLanguage: string;
  browserColorDepth?: string;
  browserScreenHeight?: string;
  browserScreenWidth?: string;
  /** Minutes between UTC and the browser's local time, as the browser's Date#getTimezoneOffset. */
  browserTZ?: string;
  browserUserAgent: string;
}

/** SDK data of an AReq for deviceChannel 01 (EMVCo sdk* fields). */
export interface AReqSdkData {
  sdkAppID: string;
  sdkTransID: string;
  /** The SDK's ephemeral public key as a JWK (EC P-256). */
  sdkEphemPubKey: Record<string, unknown>;
  sdkReferenceNumber: string;
  /** Minutes, at least 05. */
  sdkMaxTimeout: string;
}

/** The Authentication Request (AReq) Kassa sends to the DS. */
export interface AuthenticationRequest {
  messageType: 'AReq';
  messageVersion: MessageVersion;
  threeDSServerTransID: string;
  threeDSServerRefNumber: string;
  threeDSRequestorURL: string;
  /**
   * EMVCo threeDSServerURL: where the DS sends the RReq with the final result of a challenge or decoupled
   * authentication. Optional in the type because an AReq built without one (unit tests) is still well-formed.
   */
  threeDSServerURL?: string;
  /** Y, N or U: whether the 3DS Method completed (spec §2.1 threeDSCompInd). */
  threeDSCompInd: 'Y' | 'N' | 'U';
  threeDSRequestorChallengeInd: ThreeDSRequestorChallengeInd;
  /** Why the requestor authenticates: 01 payment, 02 recurring, 03 instalment, 04 add card (stored credentials). */
  threeDSRequestorAuthenticationInd: ThreeDSRequestorAuthenticationInd;
  /** YYYYMMDD; with threeDSRequestorAuthenticationInd 02 and 03. */
  recurringExpiry?: string;
  /** Minimum days between authorisations; with 02 and 03. */
  recurringFrequency?: string;
  /** Maximum number of instalments (> 1); with 03. */
  purchaseInstalData?: string;
  deviceChannel: DeviceChannel;
  /** 01 = payment authentication. */
  messageCategory: '01';
  acctNumber: string;
  /** YYMM. */
  cardExpiryDate: string;
  /** Minor units, as a decimal string without separators. */
  purchaseAmount: string;
  /** ISO 4217 numeric. */
  purchaseCurrency: string;
  purchaseExponent: string;
  /** YYYYMMDDHHMMSS, UTC. */
  purchaseDate: string;
  merchantName: string;
  /** ISO 3166-1 numeric. */
  merchantCountryCode: string;
  acquirerMerchantID: string;
  /** Where the ACS posts the CRes after a browser challenge. */
  notificationURL?: string;
  browser?: AReqBrowserData;
  sdk?: AReqSdkData;
  cardholderName?: string;
}

/** acsRenderingType of an app-based ARes (spec §2.2). */
export interface AcsRenderingType {
  acsInterface: '' | 'native' | 'html';
  acsUiTemplate: '' | 'text' | 'singleSelect' | 'multiSelect' | 'oob' | 'other';
}

/** The Authentication Response (ARes) a DS returns; optional fields are absent when the ACS did not send them. */
export interface AuthenticationResponseMessage {
  messageType: 'ARes';
  messageVersion: MessageVersion;
  threeDSServerTransID: string;
  acsTransID: string;
  dsTransID: string;
  acsReferenceNumber: string;
  dsReferenceNumber: string;
  acsOperatorID?: string;
  transStatus: TransStatus;
  /** EMVCo transStatusReason code, 01–26 or 80–88. */
  transStatusReason?: string;
  /** Electronic Commerce Indicator, 2 digits, per scheme. */
  eci?: string;
  /** CAVV/AAV, 28 Base64 characters. */
  authenticationValue?: string;
  acsChallengeMandated?: 'Y' | 'N';
  /** 01 static, 02 dynamic, 03 oob, 04 decoupled (2.2.0+). */
  authenticationType?: '01' | '02' | '03' | '04';
  acsURL?: string;
  acsRenderingType?: AcsRenderingType;
  acsSignedContent?: string;
  sdkTransID?: string;
  cardholderInfo?: string;
  acsDecConInd?: 'Y' | 'N';
  broadInfo?: string;
  messageExtension?: string;
  whiteListStatus?: 'Y' | 'N' | 'E' | 'P' | 'R' | 'U';
  whiteListStatusSource?: '01' | '02' | '03';
}

/** EMVCo Error message (Erro) a DS returns instead of an ARes. */
export interface ThreeDSErrorMessage {
  messageType: 'Erro';
  messageVersion: string;
  threeDSServerTransID: string;
  /** EMVCo errorCode, e.g. 305 (transaction data not valid), 101 (message received invalid). */
  errorCode: string;
  errorComponent: 'S' | 'D' | 'A';
  errorDescription: string;
  errorDetail: string;
  /** EMVCo errorMessageType: the messageType of the message in error (e.g. AReq, ARes), when it was recognised. */
  errorMessageType?: string;
  /** EMVCo acsTransID, when the error concerns a transaction the ACS already knows. */
  acsTransID?: string;
  /** EMVCo dsTransID, when the DS already assigned one. */
  dsTransID?: string;
}

/** Card range data as a DS hands it out in a PRes (EMVCo cardRangeData). */
export interface CardRangeData {
  startRange: string;
  endRange: string;
  acsStartProtocolVersion: MessageVersion;
  acsEndProtocolVersion: MessageVersion;
  /** Absent when the ACS of the range has no 3DS Method. */
  threeDSMethodURL?: string;
}

/**
 * The Results Request (RReq) the DS forwards from the ACS to the 3DS Server after a challenge (C) or a decoupled
 * authentication (D): the final result of the authentication (EMV 3DS, RReq message). The browser's CRes is only a
 * signal; this message is the result Kassa acts on.
 */
export interface ResultsRequest {
  messageType: 'RReq';
  messageVersion: MessageVersion;
  threeDSServerTransID: string;
  acsTransID: string;
  dsTransID: string;
  /** 01 = payment authentication. */
  messageCategory: '01';
  /** Final outcome: Y, N, U, A or R (EMVCo: RReq never carries C, D or I). */
  transStatus: 'Y' | 'N' | 'U' | 'A' | 'R';
  /** Required for N, U and R: 01–26 or 80–88 (spec §2.1); 26 = authentication attempted but not performed. */
  transStatusReason?: string;
  /** Per scheme: Visa-type 05/06/07, Mastercard 02/01/00 (DESIGN.md §6). */
  eci?: string;
  /** Required for Y and A: 28 Base64 characters. */
  authenticationValue?: string;
  /** 01 static, 02 dynamic, 03 oob, 04 decoupled (2.2.0+). */
  authenticationType?: '01' | '02' | '03' | '04';
  /** EMVCo challengeCancel: 01 = the cardholder selected Cancel; 04 = transaction timed out at the ACS. */
  challengeCancel?: '01' | '04';
  /** Number of challenge rounds, 2 digits (EMVCo interactionCounter). */
  interactionCounter?: string;
  /** 2.2.0+ only (spec §9.2). */
  whiteListStatus?: 'Y' | 'N' | 'E' | 'P' | 'R' | 'U';
  whiteListStatusSource?: '01' | '02' | '03';
}

/**
 * The Results Response (RRes) the 3DS Server answers an RReq with. EMVCo resultsStatus: 01 = RReq received for
 * further processing; 02 = CReq not sent to the ACS by the 3DS Requestor; 03 = ARes challenge data not delivered to
 * the 3DS Requestor.
 */
export interface ResultsResponse {
  messageType: 'RRes';
  messageVersion: MessageVersion;
  threeDSServerTransID: string;
  acsTransID: string;
  dsTransID: string;
  resultsStatus: '01' | '02' | '03';
}
