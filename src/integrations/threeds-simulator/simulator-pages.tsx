/**
 * The simulated ACS's pages ("Kassa Sandbox Bank") as Preact components, rendered to a string the way Kassa's hosted
 * pages are (Preact escapes every text and attribute). The simulator is an adapter and may not import src/hosted/
 * (dependency rule adapters-not-http), so it keeps its own small frame, CSP and texts (simulator-i18n.ts).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { type AcsLanguage, type AcsMessages, fill } from './simulator-i18n.js';

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

const CSS = `
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
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0 0 1rem}
dt{color:#57606a}dd{margin:0;font-weight:600}
`;

/** The bank's name on every page (a sandbox brand, not translated). */
export const BANK_NAME = 'Kassa Sandbox Bank';

/** The frame of every simulated ACS page: language, title, the nonce'd style (plus `style`), optional script. */
function AcsLayout(props: {
  lang: AcsLanguage;
  title: string;
  nonce: string;
  style?: string;
  script?: string;
  children: ComponentChildren;
}) {
  return (
    <html lang={props.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        <style nonce={props.nonce}>{CSS + (props.style ?? '')}</style>
      </head>
      <body>
        <main>{props.children}</main>
        {props.script && <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: props.script }} />}
      </body>
    </html>
  );
}

/**
 * Sends a simulated ACS page with a strict CSP: nothing but the nonce'd inline script and style, forms only to
 * `formAction` origins. Framed by any site, as a real ACS's pages are: in the EMV 3DS browser flow the 3DS Requestor's
 * page POSTs the CReq into an iframe of its own (and the 3DS Method runs in a hidden one), wherever the checkout is —
 * on Kassa or inside a shop's iframe of Kassa's pages.
 */
function send(
  reply: FastifyReply,
  page: { lang: AcsLanguage; title: string; body: ComponentChildren; formAction?: string[]; status?: number },
  extra: { style?: string; script?: string } = {},
): FastifyReply {
  const n = nonce();
  const formAction = page.formAction?.length ? page.formAction.join(' ') : "'none'";
  return reply
    .status(page.status ?? 200)
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${n}'; style-src 'nonce-${n}'; ` +
        `form-action ${formAction}; base-uri 'none'; frame-ancestors *`,
    )
    .removeHeader('x-frame-options')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html>${renderToString(
        <AcsLayout lang={page.lang} title={page.title} nonce={n} style={extra.style} script={extra.script}>
          {page.body}
        </AcsLayout>,
      )}`,
    );
}

/** A 400 page: the request is not one the ACS accepts. */
export function sendErrorPage(reply: FastifyReply, lang: AcsLanguage, t: AcsMessages, message: string) {
  return send(reply, {
    lang,
    title: BANK_NAME,
    status: 400,
    body: (
      <>
        <div class="bank">{BANK_NAME}</div>
        <h1>{t.errorTitle}</h1>
        <p>{message}</p>
      </>
    ),
  });
}

/** A page that only says something (the 3DS Method page of an ACS that never calls back). */
export function sendMessagePage(reply: FastifyReply, lang: AcsLanguage, title: string, message: string) {
  return send(reply, { lang, title, body: <p>{message}</p> });
}

/**
 * A page that POSTs `fields` to `action` at once (nonce'd fixed script), with a Continue button for browsers without
 * JavaScript.
 */
export function sendAutoPostPage(
  reply: FastifyReply,
  page: {
    lang: AcsLanguage;
    t: AcsMessages;
    title: string;
    action: string;
    fields: Record<string, string>;
    message: string;
  },
): FastifyReply {
  const origin = originOf(page.action);
  return send(
    reply,
    {
      lang: page.lang,
      title: page.title,
      formAction: origin === undefined ? [] : [origin],
      body: (
        <>
          <p>{page.message}</p>
          <form id="autopost" method="post" action={page.action}>
            {Object.entries(page.fields).map(([name, value]) => (
              <input key={name} type="hidden" name={name} value={value} />
            ))}
            <noscript>
              <button type="submit">{page.t.continue}</button>
            </noscript>
          </form>
        </>
      ),
    },
    { script: "document.getElementById('autopost').submit();" },
  );
}

/** What the challenge page shows of the purchase (from the AReq). */
export interface ChallengeDetails {
  acsTransID: string;
  threeDSSessionData?: string;
  acsChallengeMandated: boolean;
  merchantName?: string;
  /** Formatted amount with currency. */
  amount?: string;
  cardholderName?: string;
  otp: string;
  submitAction: string;
  /** CSS of the challenge window size (EMVCo challengeWindowSize). */
  windowStyle: string;
}

/** The browser challenge page: the purchase, the one-time code field, Submit and Cancel. */
export function sendChallengePage(reply: FastifyReply, lang: AcsLanguage, t: AcsMessages, c: ChallengeDetails) {
  return send(
    reply,
    {
      lang,
      title: t.pageTitle,
      formAction: ["'self'"],
      body: (
        <>
          <div class="bank">{BANK_NAME}</div>
          <h1>{t.challengeTitle}</h1>
          <dl>
            {c.merchantName !== undefined && (
              <>
                <dt>{t.merchant}</dt>
                <dd data-testid="merchant">{c.merchantName}</dd>
              </>
            )}
            {c.amount !== undefined && (
              <>
                <dt>{t.amount}</dt>
                <dd data-testid="amount">{c.amount}</dd>
              </>
            )}
            {c.cardholderName !== undefined && (
              <>
                <dt>{t.cardholder}</dt>
                <dd data-testid="cardholder">{c.cardholderName}</dd>
              </>
            )}
          </dl>
          <p>
            {t.otpSent}
            {c.acsChallengeMandated && ` ${t.mandated}`}
          </p>
          <p class="hint">{fill(t.sandboxHint, { otp: c.otp })}</p>
          <form method="post" action={c.submitAction}>
            <input type="hidden" name="acsTransID" value={c.acsTransID} />
            {c.threeDSSessionData !== undefined && (
              <input type="hidden" name="threeDSSessionData" value={c.threeDSSessionData} />
            )}
            <label for="otp">{t.otpLabel}</label>
            <input
              type="text"
              id="otp"
              name="otp"
              inputmode="numeric"
              autocomplete="one-time-code"
              maxlength={8}
              autofocus
            />
            <div class="actions">
              <button type="submit" name="action" value="submit">
                {t.submit}
              </button>
              <button type="submit" name="action" value="cancel" class="secondary" formnovalidate>
                {t.cancel}
              </button>
            </div>
          </form>
        </>
      ),
    },
    { style: `main{${c.windowStyle}}` },
  );
}
