import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** A fresh CSP nonce (128 bits, base64) for one response. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The origin of an http(s) URL (for CSP source lists), or undefined. */
export function originOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A CSP-safe http(s) origin: scheme, host name (letters, digits, `.`, `-`, `_`; or a bracketed IPv6 address) and port
 * only. A URL the API took (`format: uri`) may parse to a host holding `;` or a space, which would end the directive
 * and start another in the header.
 */
const CSP_SAFE_ORIGIN = /^https?:\/\/(?:[a-z0-9._-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origins of the merchant's `urls.return` and `urls.cancel`, CSP-safe, each once: the merchant's site. A page's
 * cancel and confirm forms end there through Kassa's 303 (paygate-v2-wire.md §6; Chromium applies the CSP's
 * `form-action` to a form's redirects too: without them the browser stops at Kassa, net::ERR_ABORTED), and that site
 * may show Kassa's pages in an iframe (PagePolicy.framedBy).
 */
export function merchantOrigins(urls: { return?: string; cancel?: string } | undefined): string[] {
  const origins = [urls?.return, urls?.cancel].flatMap((url) => {
    try {
      const origin = url === undefined ? undefined : new URL(url).origin;
      return origin !== undefined && CSP_SAFE_ORIGIN.test(origin) ? [origin] : [];
    } catch {
      return [];
    }
  });
  return [...new Set(origins)];
}

/** What a hosted page may reach beyond its own nonce'd script and style. */
export interface PagePolicy {
  /** Origins forms may post to besides 'self' (the ACS: acsURL, threeDSMethodURL). */
  formAction?: string[];
  /** Origins the page may frame (the ACS's 3DS Method page). */
  frameSrc?: string[];
  /**
   * Origins besides Kassa's own that may frame the page: the merchant's site ({@link merchantOrigins}), for the shop
   * plugins' iframe mode (the Axepta WooCommerce, Magento 2 and PrestaShop plugins show `_links.redirect.href` in an
   * iframe of the checkout), which Computop's Paygate allows. Every other site still may not (clickjacking). `['*']`:
   * any site, for a page with nothing to click. Without it no page may frame this one, Kassa's own included.
   */
  framedBy?: string[];
  /** Whether the page's script may call Kassa (the card step's live brand and fee preview). */
  connectSelf?: boolean;
  /** https origins images may come from (the merchant's logo, customField3); nothing else may load images. */
  imgSrc?: string[];
}

/**
 * The strict Content-Security-Policy of hosted pages (DESIGN.md §8): `default-src 'none'`, script and style only with
 * the response's nonce, forms to Kassa and the named ACS origins, frames only of the named ACS origins, images only
 * from the merchant's logo origin, framed by no other site than the merchant's own (`framedBy`).
 */
export function contentSecurityPolicy(nonce: string, policy: PagePolicy = {}): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    ...(policy.connectSelf ? ["connect-src 'self'"] : []),
    ...(policy.imgSrc?.length ? [`img-src ${policy.imgSrc.join(' ')}`] : []),
    `form-action ${["'self'", ...(policy.formAction ?? [])].join(' ')}`,
    ...(policy.frameSrc?.length ? [`frame-src ${policy.frameSrc.join(' ')}`] : []),
    `frame-ancestors ${policy.framedBy?.length ? ["'self'", ...policy.framedBy].join(' ') : "'none'"}`,
    "base-uri 'none'",
  ].join('; ');
}

/**
 * Sends a server-rendered page (Preact to string, auto-escaped) with its CSP, `cache-control: no-store` (links carry
 * tokens) and `referrer-policy: no-referrer` (a token never leaks to the ACS or the merchant in a Referer header).
 */
export function sendPage(reply: FastifyReply, page: VNode, nonce: string, policy: PagePolicy = {}, status = 200) {
  // X-Frame-Options names no other origin (ALLOW-FROM is gone from browsers); CSP frame-ancestors, which browsers obey
  // over it, says which may frame the page.
  if (policy.framedBy?.length) reply.removeHeader('x-frame-options');
  else reply.header('x-frame-options', 'DENY');
  return reply
    .status(status)
    .header('content-security-policy', contentSecurityPolicy(nonce, policy))
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(`<!doctype html>${renderToString(page)}`);
}
