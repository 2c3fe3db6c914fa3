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

/** What a hosted page may reach beyond its own nonce'd script and style. */
export interface PagePolicy {
  /** Origins forms may post to besides 'self' (the ACS: acsURL, threeDSMethodURL). */
  formAction?: string[];
  /** Origins the page may frame (the ACS's 3DS Method page). */
  frameSrc?: string[];
  /** Whether Kassa's own pages may frame this page (the method notification runs inside the method iframe). */
  framedBySelf?: boolean;
  /** Whether the page's script may call Kassa (the card step's live brand and fee preview). */
  connectSelf?: boolean;
  /** https origins images may come from (the merchant's logo, customField3); nothing else may load images. */
  imgSrc?: string[];
}

/**
 * The strict Content-Security-Policy of hosted pages (DESIGN.md §8): `default-src 'none'`, script and style only with
 * the response's nonce, forms to Kassa and the named ACS origins, frames only of the named ACS origins, images only
 * from the merchant's logo origin, no framing by other sites.
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
    `frame-ancestors ${policy.framedBySelf ? "'self'" : "'none'"}`,
    "base-uri 'none'",
  ].join('; ');
}

/**
 * Sends a server-rendered page (Preact to string, auto-escaped) with its CSP, `cache-control: no-store` (links carry
 * tokens) and `referrer-policy: no-referrer` (a token never leaks to the ACS or the merchant in a Referer header).
 */
export function sendPage(reply: FastifyReply, page: VNode, nonce: string, policy: PagePolicy = {}, status = 200) {
  return reply
    .status(status)
    .header('content-security-policy', contentSecurityPolicy(nonce, policy))
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', policy.framedBySelf ? 'SAMEORIGIN' : 'DENY')
    .type('text/html; charset=utf-8')
    .send(`<!doctype html>${renderToString(page)}`);
}
