/**
 * Kassa as EMV 3-D Secure 2 3DS Server: picks the protocol version, builds the AReq, sends it through the
 * DirectoryServer port and checks the ARes before anything trusts it (DESIGN.md §6, spec §3).
 * Pure domain: time comes from the Clock port, transport from the DirectoryServer port.
 */

import { code as currencyByCode } from 'currency-codes';
import countries from 'i18n-iso-countries';
import type { ThreeDsPolicy } from '../../contracts/create-request.js';
import type { CredentialOnFile } from '../cards/credential-on-file.js';
import type { ThreeDSResult } from '../payments/payment.js';
import type { BrowserInfo, ChallengePreference, SdkInfo } from '../payments/payment-request.js';
import type { Clock } from '../ports/clock.js';
import type { DirectoryServer } from '../ports/directory-server.js';
import { UUID_PATTERN } from '../ports/id-generator.js';
import { storedCredentialAReqFields } from './stored-credential-fields.js';
import {
  type AReqBrowserData,
  type AReqSdkData,
  type AuthenticationRequest,
  type AuthenticationResponseMessage,
  type CardRangeData,
  type MessageVersion,
  SUPPORTED_MESSAGE_VERSIONS,
  type ThreeDSErrorMessage,
  type ThreeDSRequestorChallengeInd,
  type TransStatus,
} from './three-ds-messages.js';

/** The highest EMV 3DS protocol version Kassa speaks (DESIGN.md §6). */
export const KASSA_MAX_MESSAGE_VERSION: MessageVersion = '2.3.1';

/**
 * Kassa's threeDSServerRefNumber (EMVCo AReq field, max 32): the identifier EMVCo assigns to an approved
 * 3DS Server. Kassa is not EMVCo-approved; this fixed value identifies it to the simulator and in logs.
 */
export const KASSA_THREE_DS_SERVER_REF_NUMBER = 'KASSA-3DS-SERVER-0001';

/** 28 characters of standard Base64 (a 20-byte CAVV/AAV is 27 characters + '='), EMVCo authenticationValue. */
const AUTHENTICATION_VALUE_PATTERN = /^(?:[A-Za-z0-9+/]{28}|[A-Za-z0-9+/]{27}=|[A-Za-z0-9+/]{26}==)$/;
/** EMVCo transStatusReason: 01–26 or 80–88 (spec §2.1). */
const TRANS_STATUS_REASON_PATTERN = /^(0[1-9]|1[0-9]|2[0-6]|8[0-8])$/;
const TRANS_STATUSES: readonly TransStatus[] = ['Y', 'N', 'U', 'A', 'C', 'D', 'R', 'I'];

function versionIndex(version: string): number {
  return SUPPORTED_MESSAGE_VERSIONS.indexOf(version as MessageVersion);
}

/** Whether `version` is 2.2.0 or later (decoupled, informational, whitelisting exist from there on: spec §9.2). */
export function isAtLeast220(version: MessageVersion): boolean {
  return versionIndex(version) >= versionIndex('2.2.0');
}

/**
 * The protocol version of an authentication: the lower of Kassa's highest version (2.3.1) and the highest version
 * the card range's ACS supports (EMVCo cardRangeData.acsEndProtocolVersion; DESIGN.md §6).
 * @throws RangeError when the ACS's range does not overlap Kassa's versions (cannot happen with MessageVersion values
 * unless the range is malformed, e.g. acsStartProtocolVersion above acsEndProtocolVersion).
 */
export function negotiateMessageVersion(range: CardRangeData): MessageVersion {
  const acsEnd = versionIndex(range.acsEndProtocolVersion);
  const acsStart = versionIndex(range.acsStartProtocolVersion);
  if (acsEnd < 0 || acsStart < 0 || acsStart > acsEnd) {
    throw new RangeError(
      `card range ${range.startRange}-${range.endRange}: unusable ACS protocol versions ` +
        `${range.acsStartProtocolVersion}..${range.acsEndProtocolVersion}`,
    );
  }
  const chosen = Math.min(acsEnd, versionIndex(KASSA_MAX_MESSAGE_VERSION));
  return SUPPORTED_MESSAGE_VERSIONS[chosen] as MessageVersion;
}

/** What Kassa knows about a payment when it starts 3-D Secure. Amounts in minor units. */
export interface AReqInput {
  /** Kassa's payment id as a canonical UUID (DESIGN.md §4; spec §2.1 threeDSServerTransID). */
  threeDSServerTransID: string;
  /** The negotiated version (see negotiateMessageVersion). */
  messageVersion: MessageVersion;
  /** Card number, 13–19 digits. Travels only inside the AReq; never stored or logged. */
  pan: string;
  /** YYYYMM. */
  expiryDate: string;
  cardholderName?: string;
  /** `value` in ISO 4217 minor units (> 0, integer); `currency` ISO 4217 alphabetic. Surcharge included. */
  amount: { value: number; currency: string };
  /** `country` is ISO 3166-1 alpha-2; `merchantId` becomes acquirerMerchantID. */
  merchant: { merchantId: string; name: string; country: string };
  channel: 'BROWSER' | 'APP';
  /** Required for BROWSER. `challengeWindowSize` is not an AReq field: pass it to buildAuthenticationResponse. */
  browserInfo?: BrowserInfo;
  /** Required for APP. */
  sdkInfo?: SdkInfo;
  challengePreference: ChallengePreference;
  /** Paygate's `skip` (DATA_ONLY) and `exemption`, which set threeDSRequestorChallengeInd (challengeIndicatorOf). */
  threeDsPolicy?: ThreeDsPolicyIndicators;
  /**
   * The payment's `credentialOnFile`, when it has one: an initial payment that stores the card sends the EMVCo
   * stored-credential fields (see storedCredentialAReqFields); absent → threeDSRequestorAuthenticationInd 01.
   */
  credentialOnFile?: CredentialOnFile;
  /**
   * Outcome of the 3DS Method (spec §2.1 threeDSCompInd): Y completed, N did not complete, U no 3DS Method URL.
   */
  threeDSCompInd: 'Y' | 'N' | 'U';
  /** Where the ACS posts the CRes after a browser challenge (EMVCo notificationURL). Required for BROWSER. */
  notificationURL?: string;
  /** The 3DS Requestor's (merchant's or Kassa's) website (EMVCo threeDSRequestorURL). */
  threeDSRequestorURL: string;
  /** Where the DS sends the RReq (EMVCo threeDSServerURL); absent in unit tests of the AReq alone. */
  threeDSServerURL?: string;
  /** Purchase date (EMVCo purchaseDate, sent in UTC). */
  now: Date;
}

/** EMVCo threeDSRequestorChallengeInd for each merchant challenge preference (DESIGN.md §4 threeDsPolicy). */
export const CHALLENGE_INDICATOR: Readonly<Record<ChallengePreference, ThreeDSRequestorChallengeInd>> = {
  NO_PREFERENCE: '01',
  NO_CHALLENGE: '02',
  REQUEST_CHALLENGE: '03',
  MANDATE_CHALLENGE: '04',
};

/** Paygate's `skip` and `exemption` of `paymentMethods.card.threeDsPolicy` that reach the AReq. */
export type ThreeDsPolicyIndicators = Pick<ThreeDsPolicy, 'skip' | 'exemption'>;

/**
 * The AReq's threeDSRequestorChallengeInd for a payment (EMV 3DS 2.2): `skip: DATA_ONLY` → 06 (data share only);
 * an exemption → 05 for TRANSACTION_RISK_ANALYSIS, 08 for TRUSTED_BENEFICIARY (whitelist), 02 (no challenge
 * requested) for the exemptions 2.2 has no indicator for (LOW_VALUE, SECURE_CORPORATE_PAYMENT, DELEGATE_AUTHORITY);
 * else the challenge preference (01–04). On 2.1.0 (no 05–09) every "no challenge" is 02. `skip` THIS_TRANSACTION / OUT_OF_SCOPE send no AReq at all (the caller's rule).
 */
export function challengeIndicatorOf(
  preference: ChallengePreference,
  policy: ThreeDsPolicyIndicators | undefined,
  messageVersion: MessageVersion = '2.2.0',
): ThreeDSRequestorChallengeInd {
  // 2.1.0 knows 01–04 only: what 2.2.0 says with 05–09 is "no challenge requested" (02) there.
  const v22 = isAtLeast220(messageVersion);
  if (policy?.skip === 'DATA_ONLY') return v22 ? '06' : '02';
  const reason = policy?.exemption?.reason;
  if (policy?.exemption !== undefined) {
    if (!v22) return '02';
    return reason === 'TRANSACTION_RISK_ANALYSIS' ? '05' : reason === 'TRUSTED_BENEFICIARY' ? '08' : '02';
  }
  return CHALLENGE_INDICATOR[preference];
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** EMVCo purchaseDate: YYYYMMDDHHMMSS in UTC. */
function formatPurchaseDate(d: Date): string {
  return (
    pad(d.getUTCFullYear(), 4) +
    pad(d.getUTCMonth() + 1) +
    pad(d.getUTCDate()) +
    pad(d.getUTCHours()) +
    pad(d.getUTCMinutes()) +
    pad(d.getUTCSeconds())
  );
}

/** EMVCo browserColorDepth values (EMV 3DS 2.2.0 Table A.1): bits per pixel. */
const EMV_COLOR_DEPTHS = [1, 4, 8, 15, 16, 24, 32, 48] as const;

/**
 * The EMVCo browserColorDepth for a browser's `screen.colorDepth`: the largest allowed value not above it, so a 10-bit
 * display's 30 is sent as 24 (an ACS refuses a value outside the list with Erro 203). Below 1: 1.
 */
export function emvColorDepth(bitsPerPixel: number): number {
  let depth: number = EMV_COLOR_DEPTHS[0];
  for (const allowed of EMV_COLOR_DEPTHS) if (allowed <= bitsPerPixel) depth = allowed;
  return depth;
}

/**
 * The EMVCo browserLanguage for a browser's BCP 47 tag: at most 8 characters (EMV 3DS 2.1.0 and 2.2.0, Table A.1), so
 * subtags are dropped from the end until it fits: `zh-Hant-TW` → `zh-Hant`, `de-CH-1996` → `de-CH`. A DS refuses a
 * longer value with Erro 203.
 */
export function emvBrowserLanguage(tag: string): string {
  const subtags = tag.split(/[-_]/);
  while (subtags.length > 1 && subtags.join('-').length > 8) subtags.pop();
  return subtags.join('-').slice(0, 8);
}

function browserData(info: BrowserInfo): AReqBrowserData {
  const data: AReqBrowserData = {
    browserAcceptHeader: info.acceptHeaders,
    // EMVCo browserJavaEnabled, as the merchant reports it (`browserInfo.javaEnabled`); without it false, which
    // navigator.javaEnabled() answers in every current browser (EMVCo 2.1.0 requires the field).
    browserJavaEnabled: info.javaEnabled ?? false,
    browserJavascriptEnabled: info.javaScriptEnabled,
    browserLanguage: emvBrowserLanguage(info.language),
    browserUserAgent: info.userAgent,
  };
  if (info.ipAddress !== undefined) data.browserIP = info.ipAddress;
  if (info.colorDepth !== undefined) data.browserColorDepth = String(emvColorDepth(info.colorDepth));
  if (info.screenHeight !== undefined) data.browserScreenHeight = String(info.screenHeight);
  if (info.screenWidth !== undefined) data.browserScreenWidth = String(info.screenWidth);
  if (info.timeZoneOffset !== undefined) data.browserTZ = String(info.timeZoneOffset);
  return data;
}

function sdkData(info: SdkInfo): AReqSdkData {
  return {
    sdkAppID: info.sdkAppID,
    sdkTransID: info.sdkTransID,
    sdkEphemPubKey: info.sdkEphemPubKey,
    sdkReferenceNumber: info.sdkReferenceNumber,
    // EMVCo sdkMaxTimeout: 2 digits, minutes.
    sdkMaxTimeout: pad(info.sdkMaxTimeout),
  };
}

/**
 * Builds the EMVCo AReq (payment authentication, messageCategory 01) for a payment.
 * Maps: expiryDate YYYYMM → cardExpiryDate YYMM; currency alpha → ISO 4217 numeric purchaseCurrency with its
 * exponent; country alpha-2 → ISO 3166-1 numeric merchantCountryCode; challengePreference →
 * threeDSRequestorChallengeInd 01..04; channel BROWSER → deviceChannel 02 (+ browser data, notificationURL),
 * APP → 01 (+ sdk data).
 * @throws RangeError on input the payment flow should have refused already: a non-canonical threeDSServerTransID,
 * a PAN that is not 13–19 digits, an expiry that is not YYYYMM, a non-positive or non-integer amount, an unknown
 * currency or country, or missing browserInfo/notificationURL (BROWSER) or sdkInfo (APP).
 */
export function buildAReq(input: AReqInput): AuthenticationRequest {
  if (!UUID_PATTERN.test(input.threeDSServerTransID)) {
    throw new RangeError('threeDSServerTransID must be a canonical UUID');
  }
  if (!/^\d{13,19}$/.test(input.pan)) throw new RangeError('pan must be 13 to 19 digits');
  if (!/^\d{4}(0[1-9]|1[0-2])$/.test(input.expiryDate)) throw new RangeError('expiryDate must be YYYYMM');
  if (!Number.isSafeInteger(input.amount.value) || input.amount.value <= 0) {
    throw new RangeError('amount.value must be a positive integer of minor units');
  }
  const currency = currencyByCode(input.amount.currency.toUpperCase());
  if (currency === undefined) throw new RangeError(`unknown ISO 4217 currency ${input.amount.currency}`);
  const country = countries.alpha2ToNumeric(input.merchant.country.toUpperCase());
  if (country === undefined) throw new RangeError(`unknown ISO 3166-1 country ${input.merchant.country}`);

  const areq: AuthenticationRequest = {
    messageType: 'AReq',
    messageVersion: input.messageVersion,
    threeDSServerTransID: input.threeDSServerTransID,
    threeDSServerRefNumber: KASSA_THREE_DS_SERVER_REF_NUMBER,
    threeDSRequestorURL: input.threeDSRequestorURL,
    threeDSCompInd: input.threeDSCompInd,
    threeDSRequestorChallengeInd: challengeIndicatorOf(
      input.challengePreference,
      input.threeDsPolicy,
      input.messageVersion,
    ),
    ...storedCredentialAReqFields(input.credentialOnFile, input.expiryDate),
    deviceChannel: input.channel === 'APP' ? '01' : '02',
    messageCategory: '01',
    acctNumber: input.pan,
    cardExpiryDate: input.expiryDate.slice(2),
    purchaseAmount: String(input.amount.value),
    purchaseCurrency: currency.number.padStart(3, '0'),
    purchaseExponent: String(currency.digits),
    purchaseDate: formatPurchaseDate(input.now),
    // EMVCo merchantName: max 40 characters.
    merchantName: input.merchant.name.slice(0, 40),
    merchantCountryCode: country.padStart(3, '0'),
    acquirerMerchantID: input.merchant.merchantId,
  };
  if (input.threeDSServerURL !== undefined) areq.threeDSServerURL = input.threeDSServerURL;
  // EMVCo cardholderName: 2–45 characters; a shorter one is left out rather than refused by the DS.
  const cardholderName = input.cardholderName?.trim().slice(0, 45);
  if (cardholderName !== undefined && cardholderName.length >= 2) areq.cardholderName = cardholderName;
  if (input.channel === 'BROWSER') {
    if (input.browserInfo === undefined) throw new RangeError('browserInfo is required for the BROWSER channel');
    if (input.notificationURL === undefined) {
      throw new RangeError('notificationURL is required for the BROWSER channel');
    }
    areq.browser = browserData(input.browserInfo);
    areq.notificationURL = input.notificationURL;
  } else {
    if (input.sdkInfo === undefined) throw new RangeError('sdkInfo is required for the APP channel');
    areq.sdk = sdkData(input.sdkInfo);
  }
  return areq;
}

/** Input of `authenticate`: an AReqInput without the version (negotiated) and date (from the clock). */
export type AuthenticateInput = Omit<AReqInput, 'messageVersion' | 'now'>;

/**
 * Result of one AReq/ARes exchange. A non-enrolled card and a rejected exchange are results, not exceptions.
 * - ARES: a checked ARes (safe to act on and to turn into an authenticationResponse).
 * - NOT_ENROLLED: the card is in no card range of the DS; no AReq was sent.
 * - ERROR: the DS/ACS answered with an EMVCo Erro, or the ARes failed Kassa's checks (then `error` is the Erro the
 *   3DS Server raises, errorComponent S, errorMessageType ARes).
 */
export type AuthenticationOutcome =
  | { kind: 'ARES'; areq: AuthenticationRequest; ares: AuthenticationResponseMessage }
  | { kind: 'NOT_ENROLLED' }
  | { kind: 'ERROR'; areq: AuthenticationRequest; error: ThreeDSErrorMessage };

/**
 * Runs the AReq/ARes step of EMV 3DS for a payment: looks up the card range (ds.cardRange) unless the caller passes
 * the one it looked up already (`lookedUp`, for the same `input.pan`; `{range: undefined}`: not enrolled), negotiates the
 * version, builds the AReq (purchase date from `clock`), sends it, and checks the answer with `checkARes`.
 * When the range has no 3DS Method URL, threeDSCompInd is sent as U whatever the input says (spec §2.1).
 * @throws RangeError as buildAReq; whatever the DirectoryServer throws on transport failure.
 */
export async function authenticate(
  ds: DirectoryServer,
  clock: Clock,
  input: AuthenticateInput,
  lookedUp?: { range: CardRangeData | undefined },
): Promise<AuthenticationOutcome> {
  const range = lookedUp ? lookedUp.range : await ds.cardRange(input.pan);
  if (range === undefined) return { kind: 'NOT_ENROLLED' };
  const areq = buildAReq({
    ...input,
    threeDSCompInd: range.threeDSMethodURL === undefined ? 'U' : input.threeDSCompInd,
    messageVersion: negotiateMessageVersion(range),
    now: clock.now(),
  });
  const answer = await ds.authenticate(areq);
  if (answer.messageType === 'Erro') return { kind: 'ERROR', areq, error: answer };
  const problems = checkARes(areq, answer);
  if (problems.length > 0) return { kind: 'ERROR', areq, error: aresError(areq, answer, problems) };
  return { kind: 'ARES', areq, ares: answer };
}

/** One reason an ARes is refused: EMVCo errorCode 201 (required element missing) or 203 (invalid element). */
export interface AResProblem {
  errorCode: '201' | '203';
  /** EMVCo data element name, as it goes into errorDetail. */
  field: string;
  message: string;
}

const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * Checks an ARes against the AReq it answers, as a 3DS Server must before acting on it (EMV 3DS ARes rules and
 * spec §2.1/§3): messageType ARes, messageVersion equal to the AReq's, threeDSServerTransID and (app) sdkTransID
 * echoed, acsTransID/dsTransID UUIDs, reference numbers ≤ 32, transStatus known and allowed for the version (D and I
 * from 2.2.0), the fields each transStatus requires (Y/A: authenticationValue of 28 Base64 chars and eci; N/U/R:
 * transStatusReason 01–26/80–88; C: authenticationType, acsChallengeMandated and acsURL (browser) or acsSignedContent
 * and acsRenderingType (app); D: acsDecConInd Y, authenticationType 04, cardholderInfo), lengths of spec §8, and no
 * 2.2.0-only field (acsDecConInd, whiteListStatus, whiteListStatusSource, authenticationType 04) in 2.1.0.
 * Reads the ARes as untrusted data: it does not rely on the TypeScript type.
 * @returns the problems; empty when the ARes can be trusted.
 */
export function checkARes(areq: AuthenticationRequest, ares: AuthenticationResponseMessage): AResProblem[] {
  const problems: AResProblem[] = [];
  const raw = ares as unknown as Record<string, unknown>;
  const missing = (field: string, why: string) =>
    problems.push({ errorCode: '201', field, message: `${field} is required ${why}` });
  const invalid = (field: string, message: string) => problems.push({ errorCode: '203', field, message });
  const str = (field: string): string | undefined => {
    const v = raw[field];
    if (v === undefined) return undefined;
    if (!isString(v)) {
      invalid(field, `${field} must be a string`);
      return undefined;
    }
    return v;
  };
  const maxLength = (field: string, max: number) => {
    const v = str(field);
    if (v !== undefined && (v.length === 0 || v.length > max)) invalid(field, `${field} must be 1 to ${max} chars`);
  };

  if (raw.messageType !== 'ARes') invalid('messageType', 'messageType must be ARes');
  if (raw.messageVersion !== areq.messageVersion) {
    invalid('messageVersion', `messageVersion must equal the AReq's ${areq.messageVersion}`);
  }
  if (raw.threeDSServerTransID !== areq.threeDSServerTransID) {
    invalid('threeDSServerTransID', 'threeDSServerTransID must echo the AReq');
  }
  for (const field of ['acsTransID', 'dsTransID']) {
    const v = str(field);
    if (v === undefined) missing(field, 'in every ARes');
    else if (!UUID_PATTERN.test(v)) invalid(field, `${field} must be a canonical UUID`);
  }
  for (const field of ['acsReferenceNumber', 'dsReferenceNumber']) {
    if (raw[field] === undefined) missing(field, 'in every ARes');
    else maxLength(field, 32);
  }
  maxLength('acsOperatorID', 32);
  maxLength('broadInfo', 4096);
  maxLength('messageExtension', 81920);
  maxLength('cardholderInfo', 128);
  maxLength('acsURL', 2048);

  const version = areq.messageVersion;
  const status = raw.transStatus;
  if (!TRANS_STATUSES.includes(status as TransStatus)) {
    if (status === undefined) missing('transStatus', 'in every ARes');
    else invalid('transStatus', 'transStatus must be one of Y N U A C D R I');
    return problems;
  }
  if ((status === 'D' || status === 'I') && !isAtLeast220(version)) {
    invalid('transStatus', `transStatus ${status} does not exist in ${version}`);
  }

  const app = areq.deviceChannel === '01';
  if (app) {
    if (raw.sdkTransID === undefined) missing('sdkTransID', 'for the app channel');
    else if (raw.sdkTransID !== areq.sdk?.sdkTransID) invalid('sdkTransID', 'sdkTransID must echo the AReq');
  } else if (raw.sdkTransID !== undefined) {
    invalid('sdkTransID', 'sdkTransID belongs to the app channel only');
  }

  const eci = str('eci');
  if (eci !== undefined && !/^\d{2}$/.test(eci)) invalid('eci', 'eci must be 2 digits');
  const authenticationValue = str('authenticationValue');
  if (authenticationValue !== undefined && !AUTHENTICATION_VALUE_PATTERN.test(authenticationValue)) {
    invalid('authenticationValue', 'authenticationValue must be 28 Base64 characters');
  }
  const reason = str('transStatusReason');
  if (reason !== undefined && !TRANS_STATUS_REASON_PATTERN.test(reason)) {
    invalid('transStatusReason', 'transStatusReason must be 01-26 or 80-88');
  }
  const authenticationType = str('authenticationType');
  if (authenticationType !== undefined && !['01', '02', '03', '04'].includes(authenticationType)) {
    invalid('authenticationType', 'authenticationType must be 01 to 04');
  }
  for (const field of ['acsChallengeMandated', 'acsDecConInd']) {
    const v = str(field);
    if (v !== undefined && v !== 'Y' && v !== 'N') invalid(field, `${field} must be Y or N`);
  }
  const whiteListStatus = str('whiteListStatus');
  if (whiteListStatus !== undefined && !['Y', 'N', 'E', 'P', 'R', 'U'].includes(whiteListStatus)) {
    invalid('whiteListStatus', 'whiteListStatus must be one of Y N E P R U');
  }
  const whiteListStatusSource = str('whiteListStatusSource');
  if (whiteListStatusSource !== undefined && !['01', '02', '03'].includes(whiteListStatusSource)) {
    invalid('whiteListStatusSource', 'whiteListStatusSource must be 01, 02 or 03');
  }
  if (!isAtLeast220(version)) {
    for (const field of ['acsDecConInd', 'whiteListStatus', 'whiteListStatusSource']) {
      if (raw[field] !== undefined) invalid(field, `${field} does not exist in ${version}`);
    }
    if (authenticationType === '04') invalid('authenticationType', `decoupled (04) does not exist in ${version}`);
  }

  switch (status) {
    case 'Y':
    case 'A':
      if (authenticationValue === undefined) missing('authenticationValue', `for transStatus ${status}`);
      if (eci === undefined) missing('eci', `for transStatus ${status}`);
      break;
    case 'N':
    case 'U':
    case 'R':
      if (reason === undefined) missing('transStatusReason', `for transStatus ${status}`);
      break;
    case 'C': {
      if (authenticationType === undefined) missing('authenticationType', 'for transStatus C');
      else if (authenticationType === '04') invalid('authenticationType', 'decoupled (04) is for transStatus D');
      if (raw.acsChallengeMandated === undefined) missing('acsChallengeMandated', 'for transStatus C');
      if (app) {
        const signed = str('acsSignedContent');
        if (signed === undefined) missing('acsSignedContent', 'for an app challenge');
        else if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(signed)) invalid('acsSignedContent', 'must be a compact JWS');
        if (raw.acsRenderingType === undefined) missing('acsRenderingType', 'for an app challenge');
        else if (!validRenderingType(raw.acsRenderingType)) {
          invalid('acsRenderingType', 'acsRenderingType must hold acsInterface and acsUiTemplate (spec §2.2)');
        }
      } else {
        const url = str('acsURL');
        if (url === undefined) missing('acsURL', 'for a browser challenge');
        else if (!/^https?:\/\/[^\s]+$/.test(url)) invalid('acsURL', 'acsURL must be an http(s) URL');
      }
      break;
    }
    case 'D':
      if (raw.acsDecConInd !== 'Y') {
        if (raw.acsDecConInd === undefined) missing('acsDecConInd', 'for transStatus D');
        else invalid('acsDecConInd', 'acsDecConInd must be Y for transStatus D');
      }
      if (authenticationType !== '04') {
        if (authenticationType === undefined) missing('authenticationType', 'for transStatus D');
        else invalid('authenticationType', 'authenticationType must be 04 (decoupled) for transStatus D');
      }
      if (raw.cardholderInfo === undefined) missing('cardholderInfo', 'for transStatus D');
      break;
    case 'I':
      break;
  }
  if (status !== 'D' && authenticationType === '04') {
    invalid('authenticationType', 'decoupled (04) is for transStatus D only');
  }
  if (raw.acsDecConInd === 'Y' && raw.cardholderInfo === undefined) {
    missing('cardholderInfo', 'when acsDecConInd is Y');
  }
  return problems.filter((p, i) => problems.findIndex((q) => q.message === p.message) === i);
}

function validRenderingType(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    Object.keys(r).length === 2 &&
    ['native', 'html'].includes(r.acsInterface as string) &&
    ['text', 'singleSelect', 'multiSelect', 'oob', 'other'].includes(r.acsUiTemplate as string)
  );
}

/** The EMVCo Erro the 3DS Server raises for a refused ARes (errorComponent S, errorMessageType ARes). */
function aresError(
  areq: AuthenticationRequest,
  ares: AuthenticationResponseMessage,
  problems: AResProblem[],
): ThreeDSErrorMessage {
  // EMVCo: 201 when a required element is missing takes precedence over 203 (invalid format or value).
  const errorCode = problems.some((p) => p.errorCode === '201') ? '201' : '203';
  const error: ThreeDSErrorMessage = {
    messageType: 'Erro',
    messageVersion: areq.messageVersion,
    threeDSServerTransID: areq.threeDSServerTransID,
    errorCode,
    errorComponent: 'S',
    errorDescription: (errorCode === '201' ? 'Required data element missing: ' : 'Invalid data element: ')
      .concat(problems.map((p) => p.message).join('; '))
      .slice(0, 2048),
    errorDetail: [...new Set(problems.map((p) => p.field))].join(',').slice(0, 2048),
    errorMessageType: 'ARes',
  };
  if (isString(ares.acsTransID)) error.acsTransID = ares.acsTransID;
  if (isString(ares.dsTransID)) error.dsTransID = ares.dsTransID;
  return error;
}

/**
 * The 3-D Secure result a payment keeps from a checked ARes (payment.ts ThreeDSResult). liabilityShift is true for
 * Y and A only (DESIGN.md §6: U and I authorize without liability shift). For C and D the result is provisional
 * until the RReq arrives.
 */
export function threeDSResultFromARes(ares: AuthenticationResponseMessage): ThreeDSResult {
  const result: ThreeDSResult = {
    threeDSServerTransID: ares.threeDSServerTransID,
    messageVersion: ares.messageVersion,
    transStatus: ares.transStatus,
    acsTransID: ares.acsTransID,
    dsTransID: ares.dsTransID,
    liabilityShift: ares.transStatus === 'Y' || ares.transStatus === 'A',
  };
  if (ares.transStatusReason !== undefined) result.transStatusReason = ares.transStatusReason;
  if (ares.eci !== undefined) result.eci = ares.eci;
  if (ares.authenticationValue !== undefined) result.authenticationValue = ares.authenticationValue;
  if (ares.cardholderInfo !== undefined) result.cardholderInfo = ares.cardholderInfo;
  // As in the Authentication Notification (spec §2.1): false when the ACS did not say it was mandated.
  result.acsChallengeMandated = ares.acsChallengeMandated === 'Y';
  if (ares.acsDecConInd !== undefined) result.acsDecConInd = ares.acsDecConInd === 'Y';
  if (ares.authenticationType !== undefined) result.authenticationType = ares.authenticationType;
  if (ares.acsOperatorID !== undefined) result.acsOperatorID = ares.acsOperatorID;
  result.acsReferenceNumber = ares.acsReferenceNumber;
  result.dsReferenceNumber = ares.dsReferenceNumber;
  if (ares.sdkTransID !== undefined) result.sdkTransID = ares.sdkTransID;
  if (ares.whiteListStatus !== undefined) result.whiteListStatus = ares.whiteListStatus;
  if (ares.whiteListStatusSource !== undefined) result.whiteListStatusSource = ares.whiteListStatusSource;
  result.messageType = 'ARes';
  return result;
}
