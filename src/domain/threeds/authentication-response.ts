/**
 * The `authenticationResponse` object of the Authentication Notification (spec §2.1–§2.3, §4.7, §6), built from a
 * checked ARes. DESIGN.md §5: exactly the spec §2.1 properties, not-applicable ones as empty strings.
 */

import type {
  AcsRenderingType,
  AuthenticationResponseMessage,
  DeviceChannel,
  MessageVersion,
  TransStatus,
} from './three-ds-messages.js';
import { isAtLeast220 } from './three-ds-server.js';

/** EMVCo challengeWindowSize: 01 250×400, 02 390×400, 03 500×600, 04 600×400, 05 full screen. */
export type ChallengeWindowSize = '01' | '02' | '03' | '04' | '05';

/** The challenge window size used when the merchant gave none: full screen (EMVCo 05). */
export const DEFAULT_CHALLENGE_WINDOW_SIZE: ChallengeWindowSize = '05';

/** The CReq a browser challenge starts with (spec §2.3): exactly these five members. */
export interface ChallengeRequest {
  threeDSServerTransID: string;
  acsTransID: string;
  challengeWindowSize: ChallengeWindowSize;
  messageVersion: string;
  messageType: 'CReq';
}

/** spec §2.1 authenticationType values (EMVCo codes 01..04 spelled out). */
export type AuthenticationTypeName = '' | 'static' | 'dynamic' | 'oob' | 'decoupled';

/**
 * The spec §2.1 `authenticationResponse` object. Every property but `acsDecConInd` is always present; a property
 * whose condition does not apply holds the empty string (spec §2.1 rule 3). Lengths: see spec §2.1 and §8.
 */
export interface AuthenticationResponse {
  /** Kassa's payment id as canonical UUID, max 36. */
  threeDSServerTransID: string;
  /** true: challenge mandated by local/regional rules. false when the ACS did not say so. */
  acsChallengeMandated: boolean;
  /** Present only when the ACS sent EMVCo acsDecConInd (2.2.0+); true is required for transStatus D. */
  acsDecConInd?: boolean;
  /** max 32. */
  acsOperatorID: string;
  /** max 32. */
  acsReferenceNumber: string;
  /** Always an object (spec §2.2); both members empty unless app-based with transStatus C. */
  acsRenderingType: AcsRenderingType;
  /** App-based compact JWS, else ''. */
  acsSignedContent: string;
  /** max 36. */
  acsTransID: string;
  /** Browser challenge URL, max 2048; '' for the app channel (the URL travels inside acsSignedContent). */
  acsURL: string;
  authenticationType: AuthenticationTypeName;
  /** max 28 (Base64 CAVV/AAV). */
  authenticationValue: string;
  /** max 4096. */
  broadInfo: string;
  /** max 128. */
  cardholderInfo: string;
  /** max 32. */
  dsReferenceNumber: string;
  /** max 36. */
  dsTransID: string;
  /** max 2. */
  eci: string;
  /** max 81920. */
  messageExtension: string;
  messageType: 'ARes';
  /** 5 to 8 chars. */
  messageVersion: string;
  /** App-based only, max 36. */
  sdkTransID: string;
  transStatus: TransStatus | '';
  /** 01–26, 80–88 or ''. */
  transStatusReason: string;
  /** 2.2.0+ only; '' in 2.1.0 (spec §9.2). */
  whiteListStatus: '' | 'Y' | 'N' | 'E' | 'P' | 'R' | 'U';
  /** 2.2.0+ only; '' in 2.1.0 (spec §9.2). */
  whiteListStatusSource: '' | '01' | '02' | '03';
  /** `{}` unless transStatus is C (spec §2.3). */
  challengeRequest: ChallengeRequest | Record<string, never>;
  /** Standard Base64 (RFC 4648 §4, with padding) of the JSON of challengeRequest; '' unless transStatus is C. */
  base64EncodedChallengeRequest: string;
  threeDSCompInd: '' | 'Y' | 'N' | 'U';
}

/** What the ARes does not say but the authenticationResponse needs. */
export interface AuthenticationResponseContext {
  /** The threeDSCompInd sent in the AReq (spec §2.1). */
  threeDSCompInd: 'Y' | 'N' | 'U' | '';
  /**
   * The merchant's browserInfo.challengeWindowSize (an EMVCo CReq field, not an AReq field); defaults to '05'.
   */
  challengeWindowSize?: ChallengeWindowSize;
  /**
   * EMVCo deviceChannel of the AReq. When omitted, the channel is app (01) if the ARes carries sdkTransID or
   * acsSignedContent (EMVCo: both are app-only), else browser (02).
   */
  deviceChannel?: DeviceChannel;
}

const AUTHENTICATION_TYPE_NAMES: Readonly<Record<string, AuthenticationTypeName>> = {
  '01': 'static',
  '02': 'dynamic',
  '03': 'oob',
  '04': 'decoupled',
};

/**
 * spec §2.1 authenticationType: EMVCo 01..04 spelled out (static, dynamic, oob, decoupled); '' when absent or
 * unknown, and for decoupled (04) before 2.2.0 (spec §9.2).
 */
export function authenticationTypeName(
  code: string | undefined,
  messageVersion: MessageVersion,
): AuthenticationTypeName {
  const name = AUTHENTICATION_TYPE_NAMES[code ?? ''] ?? '';
  return name === 'decoupled' && !isAtLeast220(messageVersion) ? '' : name;
}

/**
 * Standard Base64 of a UTF-8 string. Uses Buffer, a Node global with no I/O.
 * Note: EMVCo's browser `creq` form parameter is base64url; this field is the spec's plain Base64.
 */
function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/**
 * Builds the spec §2.1 `authenticationResponse` from an ARes that `checkARes` accepted (the builder maps, it does
 * not re-check: validate the result with validateAuthenticationResponse before emitting it, DESIGN.md §5).
 * Mapping: EMVCo Y/N indicators become booleans; authenticationType 01..04 becomes static/dynamic/oob/decoupled;
 * absent fields become ''; acsRenderingType is always an object; challengeRequest/base64EncodedChallengeRequest are
 * filled only for transStatus C; acsURL is '' for the app channel (spec §2.1: it is inside acsSignedContent);
 * acsDecConInd, whiteListStatus, whiteListStatusSource and 'decoupled' are dropped for 2.1.0 (spec §9.2).
 */
export function buildAuthenticationResponse(
  ares: AuthenticationResponseMessage,
  context: AuthenticationResponseContext,
): AuthenticationResponse {
  const app =
    context.deviceChannel !== undefined
      ? context.deviceChannel === '01'
      : ares.sdkTransID !== undefined || ares.acsSignedContent !== undefined;
  const v220 = isAtLeast220(ares.messageVersion);
  const challenge = ares.transStatus === 'C';
  const authenticationType = authenticationTypeName(ares.authenticationType, ares.messageVersion);

  const challengeRequest: ChallengeRequest | Record<string, never> = challenge
    ? {
        threeDSServerTransID: ares.threeDSServerTransID,
        acsTransID: ares.acsTransID,
        challengeWindowSize: context.challengeWindowSize ?? DEFAULT_CHALLENGE_WINDOW_SIZE,
        messageVersion: ares.messageVersion,
        messageType: 'CReq',
      }
    : {};
  const renderingType: AcsRenderingType =
    app && challenge && ares.acsRenderingType !== undefined
      ? { acsInterface: ares.acsRenderingType.acsInterface, acsUiTemplate: ares.acsRenderingType.acsUiTemplate }
      : { acsInterface: '', acsUiTemplate: '' };

  // Property order follows spec §2.1, so that the JSON reads like the table.
  const response: AuthenticationResponse = {
    threeDSServerTransID: ares.threeDSServerTransID,
    acsChallengeMandated: ares.acsChallengeMandated === 'Y',
    acsOperatorID: ares.acsOperatorID ?? '',
    acsReferenceNumber: ares.acsReferenceNumber,
    acsRenderingType: renderingType,
    acsSignedContent: app ? (ares.acsSignedContent ?? '') : '',
    acsTransID: ares.acsTransID,
    acsURL: app ? '' : (ares.acsURL ?? ''),
    authenticationType,
    authenticationValue: ares.authenticationValue ?? '',
    broadInfo: ares.broadInfo ?? '',
    cardholderInfo: ares.cardholderInfo ?? '',
    dsReferenceNumber: ares.dsReferenceNumber,
    dsTransID: ares.dsTransID,
    eci: ares.eci ?? '',
    messageExtension: ares.messageExtension ?? '',
    messageType: 'ARes',
    messageVersion: ares.messageVersion,
    sdkTransID: app ? (ares.sdkTransID ?? '') : '',
    transStatus: ares.transStatus,
    transStatusReason: ares.transStatusReason ?? '',
    whiteListStatus: v220 ? (ares.whiteListStatus ?? '') : '',
    whiteListStatusSource: v220 ? (ares.whiteListStatusSource ?? '') : '',
    challengeRequest,
    base64EncodedChallengeRequest: challenge ? base64(JSON.stringify(challengeRequest)) : '',
    // The 3DS Method is a browser step (EMVCo: threeDSCompInd is for 02-BRW only): in an app it did not apply, and a
    // property whose condition does not apply holds an empty string (spec §2.1, rule 3).
    threeDSCompInd: app ? '' : context.threeDSCompInd,
  };
  if (v220 && ares.acsDecConInd !== undefined) {
    // Keep spec §2.1 order: acsDecConInd sits right after acsChallengeMandated.
    const { threeDSServerTransID, acsChallengeMandated, ...rest } = response;
    return { threeDSServerTransID, acsChallengeMandated, acsDecConInd: ares.acsDecConInd === 'Y', ...rest };
  }
  return response;
}
