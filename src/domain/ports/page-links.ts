/**
 * Kassa's own pages as the payment rooms see them: the 3-D Secure pages the cardholder's browser is sent to, and the
 * EMVCo URLs the AReq names (notificationURL, threeDSRequestorURL, threeDSServerURL). Implemented in `hosted/`
 * (`HostedThreeDSLinks`), which owns the paths and the link tokens; the domain only stores a link's random nonce
 * and expiry (three_ds_transaction), never a URL.
 */
export interface PageLinks {
  /**
   * The absolute URL of a 3-D Secure page of a payment that the browser opens with a token (`method`: the 3DS Method
   * page; `continue`: send the AReq after the method; `challenge`: the page that POSTs the CReq to the ACS, also the
   * `_links.redirect.href` of a browser C). The token is derived from `payId` and the stored `nonce`.
   */
  threeDSPage(page: 'method' | 'continue' | 'challenge', payId: string, nonce: string): string;
  /**
   * Whether `token` (as presented by the browser, any type) opens the pages of `payId` with the stored `nonce`.
   * Constant-time; never throws.
   */
  verifyThreeDSToken(payId: string, nonce: string, token: unknown): boolean;
  /** EMVCo threeDSMethodNotificationURL of a payment: where the ACS's 3DS Method page posts back. */
  methodNotificationUrl(payId: string): string;
  /** EMVCo notificationURL of a payment: where the ACS sends the browser with the final CRes. */
  challengeNotificationUrl(payId: string): string;
  /** EMVCo threeDSRequestorURL: the 3DS Requestor's (Kassa's) public base URL. */
  readonly requestorUrl: string;
  /** EMVCo threeDSServerURL: where the DS delivers RReqs. */
  readonly resultsUrl: string;
}
