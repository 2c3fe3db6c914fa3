/**
 * The messages of the EMV 3DS browser flow that travel through the cardholder's browser as form fields: the
 * 3DS Method data, the CReq (`creq`) and the CRes (`cres`). EMVCo encodes each as base64url (RFC 4648 §5, no
 * padding) of its JSON. Pure: Buffer is a Node global without I/O.
 */
import type { ChallengeRequest } from './authentication-response.js';

/** EMVCo threeDSMethodData: what the 3DS Server POSTs to the ACS's threeDSMethodURL in a hidden iframe. */
export interface ThreeDSMethodData {
  /** Kassa's payment id as canonical UUID. */
  threeDSServerTransID: string;
  /** Where the ACS's method page POSTs `threeDSMethodData` back when the method is done. */
  threeDSMethodNotificationURL: string;
}

/** The CRes the ACS sends through the browser to the notificationURL at the end of a browser challenge. */
export interface ChallengeResponse {
  threeDSServerTransID: string;
  acsTransID: string;
  messageType: 'CRes';
  messageVersion: string;
  /** EMVCo challengeCompletionInd: Y when the challenge is over. */
  challengeCompletionInd: 'Y' | 'N';
  /** Y or N in a final browser CRes; the 3DS Server takes its result from the RReq, never from this field. */
  transStatus?: string;
}

/** base64url (no padding) of the JSON of `message`. */
export function encodeBrowserMessage(message: object): string {
  return Buffer.from(JSON.stringify(message), 'utf8').toString('base64url');
}

/**
 * Decodes a base64url (or, leniently, standard Base64) form field holding a JSON object.
 * @returns the object, or undefined when the field is not Base64 of a JSON object (callers treat it as untrusted).
 */
export function decodeBrowserMessage(field: unknown): Record<string, unknown> | undefined {
  if (typeof field !== 'string' || field.length === 0 || field.length > 16_384) return undefined;
  if (!/^[A-Za-z0-9_\-+/]+={0,2}$/.test(field)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(field, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The browser `creq` form field for a challenge request (EMVCo: base64url of the CReq JSON). */
export function encodeCReq(creq: ChallengeRequest): string {
  return encodeBrowserMessage(creq);
}

/**
 * Reads a CRes form field and checks that it is a final CRes of the expected transaction (threeDSServerTransID and
 * acsTransID equal, messageType CRes). The acsTransID is known only to Kassa, the ACS and the browser that ran the
 * challenge, so a match ties the POST to that challenge.
 * @returns the CRes, or undefined when the field is malformed or names another transaction.
 */
export function readCRes(
  field: unknown,
  expected: { threeDSServerTransID: string; acsTransID: string },
): ChallengeResponse | undefined {
  const cres = decodeBrowserMessage(field);
  if (cres === undefined || cres.messageType !== 'CRes') return undefined;
  if (cres.threeDSServerTransID !== expected.threeDSServerTransID || cres.acsTransID !== expected.acsTransID) {
    return undefined;
  }
  return cres as unknown as ChallengeResponse;
}
