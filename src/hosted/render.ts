import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** A fresh CSP nonce (128 bits) for one response. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The strict Content-Security-Policy of hosted pages (DESIGN.md §8): nothing but our own nonce'd script and style,
 * forms post only to Kassa (and, for 3-D Secure, to the ACS: `formActionExtra`), no framing by other sites.
 */
export function contentSecurityPolicy(nonce: string, formActionExtra: string[] = []): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    `form-action 'self' ${formActionExtra.join(' ')}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Sends a server-rendered page (Preact to string; auto-escaped) with its CSP and no caching. */
export function sendPage(reply: FastifyReply, page: VNode, nonce: string, status = 200): FastifyReply {
  return reply
    .status(status)
    .header('content-security-policy', contentSecurityPolicy(nonce))
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .type('text/html; charset=utf-8')
    .send(`<!doctype html>${renderToString(page)}`);
}
