/**
 * The links of Kassa's own 3-D Secure pages (src/hosted/threeds) and their unguessable, expiring tokens.
 *
 * A token is HMAC-SHA256(k, "<payId>.<nonce>") in base64url, k derived with HKDF-SHA256 from the data key. Only the
 * ≥ 128-bit random nonce and the expiry are stored (three_ds_transaction): a copy of the database alone cannot open
 * a page, and getByPayId can still show the link (docs/decisions.md, "3-D Secure redirect links").
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { PageLinks } from '../../domain/ports/page-links.js';

/** Paths of Kassa's 3-D Secure pages, relative to the public URL (`:payId` = 32 hex). */
export const THREE_DS_PATHS = {
  /** GET, token: the 3DS Method page (hidden iframe to the ACS's threeDSMethodURL, then continue). */
  method: '/3ds/method/:payId',
  /** POST by the ACS's method page (threeDSMethodData): the method completed. */
  methodNotification: '/3ds/method-notification/:payId',
  /** GET, token: after the method, sends the AReq and moves on (challenge or final result). */
  continue: '/3ds/continue/:payId',
  /** GET, token: the challenge page that POSTs `creq` to the ACS (`_links.redirect.href` of a browser C). */
  challenge: '/3ds/challenge/:payId',
  /** POST by the ACS's page (`cres`): the EMVCo notificationURL. */
  challengeNotification: '/3ds/challenge-notification/:payId',
  /** The 3DS Server's results URL (EMVCo threeDSServerURL); the simulated DS delivers RReqs in process. */
  results: '/3ds/results',
} as const;

/** The absolute URL of a 3-D Secure page for a payment, with `token` when the page needs one. */
export function threeDSPageUrl(
  publicUrl: string,
  page: keyof typeof THREE_DS_PATHS,
  payId: string,
  token?: string,
): string {
  const path = THREE_DS_PATHS[page].replace(':payId', payId);
  return token === undefined ? `${publicUrl}${path}` : `${publicUrl}${path}?token=${token}`;
}

function linkKey(dataKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), 'kassa/3ds-redirect-token/v1', 32));
}

/** The redirect token of a payment: base64url HMAC-SHA256 (43 characters) of payId and the stored nonce. */
export function redirectToken(dataKey: string, payId: string, nonce: string): string {
  return createHmac('sha256', linkKey(dataKey)).update(`${payId}.${nonce}`).digest('base64url');
}

/** Constant-time check of a presented token against the stored nonce. Never throws. */
export function verifyRedirectToken(dataKey: string, payId: string, nonce: string, token: unknown): boolean {
  if (typeof token !== 'string' || token.length !== 43) return false;
  const expected = Buffer.from(redirectToken(dataKey, payId, nonce));
  const presented = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** The PageLinks port over Kassa's 3-D Secure pages, with tokens keyed from the data key. */
export class HostedThreeDSLinks implements PageLinks {
  readonly requestorUrl: string;
  readonly resultsUrl: string;

  /** `publicUrl`: Kassa's public https base URL without a trailing slash. */
  constructor(
    private readonly publicUrl: string,
    private readonly dataKey: string,
  ) {
    this.requestorUrl = publicUrl;
    this.resultsUrl = threeDSPageUrl(publicUrl, 'results', '');
  }

  threeDSPage(page: 'method' | 'continue' | 'challenge', payId: string, nonce: string): string {
    return threeDSPageUrl(this.publicUrl, page, payId, redirectToken(this.dataKey, payId, nonce));
  }

  verifyThreeDSToken(payId: string, nonce: string, token: unknown): boolean {
    return verifyRedirectToken(this.dataKey, payId, nonce, token);
  }

  methodNotificationUrl(payId: string): string {
    return threeDSPageUrl(this.publicUrl, 'methodNotification', payId);
  }

  challengeNotificationUrl(payId: string): string {
    return threeDSPageUrl(this.publicUrl, 'challengeNotification', payId);
  }
}
