import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** A fresh CSP nonce (128 bits, base64) for one response. */
export function threeDSNonce(): string {
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

/** What a 3-D Secure page may reach beyond Kassa itself. */
export interface ThreeDSPagePolicy {
  /** Origins forms may post to besides 'self' (the ACS: acsURL, threeDSMethodURL). */
  formAction?: string[];
  /** Origins the page may frame (the ACS's 3DS Method page). */
  frameSrc?: string[];
  /** Whether Kassa's own pages may frame this page (the method notification runs inside the method iframe). */
  framedBySelf?: boolean;
}

/**
 * The CSP of Kassa's 3-D Secure pages (DESIGN.md §8): `default-src 'none'`, script and style only with the nonce,
 * forms to Kassa and the named ACS origins, frames only of the named ACS origins, no framing by other sites.
 */
export function threeDSContentSecurityPolicy(nonce: string, policy: ThreeDSPagePolicy = {}): string {
  const formAction = ["'self'", ...(policy.formAction ?? [])].join(' ');
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    `form-action ${formAction}`,
    ...(policy.frameSrc?.length ? [`frame-src ${policy.frameSrc.join(' ')}`] : []),
    `frame-ancestors ${policy.framedBySelf ? "'self'" : "'none'"}`,
    "base-uri 'none'",
  ].join('; ');
}

/**
 * Sends a 3-D Secure page: HTML5 doctype + Preact render, its CSP, `cache-control: no-store` (links carry tokens),
 * `referrer-policy: no-referrer` (so the token never leaks to the ACS or the merchant in a Referer header).
 */
export function sendThreeDSPage(
  reply: FastifyReply,
  page: VNode,
  nonce: string,
  policy: ThreeDSPagePolicy = {},
  status = 200,
): FastifyReply {
  reply
    .status(status)
    .header('content-security-policy', threeDSContentSecurityPolicy(nonce, policy))
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', policy.framedBySelf ? 'SAMEORIGIN' : 'DENY')
    .type('text/html; charset=utf-8');
  return reply.send(`<!doctype html>${renderToString(page)}`);
}
