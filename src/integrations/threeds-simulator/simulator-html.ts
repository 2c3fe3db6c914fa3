/**
 * A minimal HTML helper for the simulated ACS's pages. The simulator is an adapter and may not import Kassa's
 * hosted rendering (src/hosted/html.ts, dependency rule adapters-not-http), so it keeps its own few lines.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function esc(value: unknown): string {
  return String(value)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** A fresh CSP nonce (128 bits, base64). */
export function nonce(): string {
  return randomBytes(16).toString('base64');
}

/** The origin of an http(s) URL, for CSP source lists; undefined for anything else. */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends an HTML page (the ACS "Kassa Sandbox Bank") with a strict CSP: nothing but the nonce'd inline script and
 * style, forms only to `formAction` origins.
 */
export function sendSimulatorPage(
  reply: FastifyReply,
  page: { title: string; body: string; nonce: string; formAction?: string[]; status?: number; style?: string },
): FastifyReply {
  const formAction = page.formAction?.length ? page.formAction.join(' ') : "'none'";
  reply
    .status(page.status ?? 200)
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${page.nonce}'; style-src 'nonce-${page.nonce}'; ` +
        `form-action ${formAction}; base-uri 'none'; frame-ancestors 'self'`,
    )
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8');
  return reply.send(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(page.title)}</title>
<style nonce="${esc(page.nonce)}">
body{font-family:system-ui,sans-serif;margin:0;background:#f3f5f8;color:#1b1f24}
main{max-width:26rem;margin:2rem auto;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:1.5rem}
h1{font-size:1.25rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=text]{font-size:1.25rem;padding:.5rem;width:100%;box-sizing:border-box;letter-spacing:.2em}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:6px;border:1px solid #1f6feb;background:#1f6feb;color:#fff}
button.secondary{background:#fff;color:#1f6feb}
.bank{font-weight:700;color:#0a3069;margin-bottom:.5rem}
.hint{color:#57606a;font-size:.9rem}
${page.style ?? ''}
</style>
</head>
<body>
${page.body}
</body>
</html>`);
}

/**
 * A page that POSTs `fields` to `action` at once (nonce'd script), with a submit button for browsers without
 * JavaScript.
 */
export function sendAutoPostPage(
  reply: FastifyReply,
  page: { title: string; action: string; fields: Record<string, string>; message: string },
): FastifyReply {
  const n = nonce();
  const origin = originOf(page.action);
  const inputs = Object.entries(page.fields)
    .map(([name, value]) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`)
    .join('\n');
  return sendSimulatorPage(reply, {
    title: page.title,
    nonce: n,
    formAction: origin === undefined ? [] : [origin],
    body: `<main>
<p>${esc(page.message)}</p>
<form id="autopost" method="post" action="${esc(page.action)}">
${inputs}
<noscript><button type="submit">Continue</button></noscript>
</form>
</main>
<script nonce="${esc(n)}">document.getElementById('autopost').submit();</script>`,
  });
}
