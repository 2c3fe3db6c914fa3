/**
 * Kassa's own 3-D Secure pages (DESIGN.md §6, §8): the 3DS Method page, the challenge redirect, the method
 * notification (inside the method iframe), waiting, finished and invalid-link pages. Server-rendered with Preact
 * (auto-escaped); every inline script and style carries the response's CSP nonce; scripts are fixed text that read
 * their data from `data-*` attributes, so nothing request-derived is ever interpolated into script.
 * Works without JavaScript: every automatic step has a visible button or link in <noscript>.
 */
import type { ComponentChildren, VNode } from 'preact';

/** The message the method-notification page posts to its parent (Kassa's method page, same origin). */
export const METHOD_COMPLETE_MESSAGE = 'kassa:3ds-method-complete';

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.3rem;margin:0 0 1rem}
.button{display:inline-block;margin-top:1rem;padding:.7rem 1.2rem;font:inherit;font-weight:600;border:0;border-radius:4px;background:#1f5fbf;color:#fff;text-decoration:none;cursor:pointer}
.button:focus,a:focus{outline:3px solid #1f5fbf;outline-offset:2px}
.method-frame{position:absolute;width:0;height:0;border:0;visibility:hidden}
a{color:#1f5fbf}
`;

/** The frame of every 3-D Secure page: `lang`, title, nonce'd style, optional nonce'd script (fixed text). */
function Frame(props: {
  lang: string;
  title: string;
  nonce: string;
  children: ComponentChildren;
  script?: string;
  head?: ComponentChildren;
  data?: Record<string, string>;
}): VNode {
  const data = Object.fromEntries(Object.entries(props.data ?? {}).map(([k, v]) => [`data-${k}`, v]));
  return (
    <html lang={props.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{props.title}</title>
        <style nonce={props.nonce}>{CSS}</style>
        {props.head}
      </head>
      <body {...data}>
        <main>{props.children}</main>
        {props.script && (
          // Fixed script text from this module (never request data), allowed by the CSP nonce.
          <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: props.script }} />
        )}
      </body>
    </html>
  );
}

// Fixed scripts. They read URLs from data-* attributes (escaped by Preact), never from interpolated text.
const AUTO_SUBMIT = "document.getElementById('autopost').submit();";
const NAVIGATE = 'location.replace(document.body.dataset.next);';
const METHOD_SCRIPT = `(function(){
var d=document.body.dataset,done=false;
function go(){if(done)return;done=true;location.replace(d.next);}
window.addEventListener('message',function(e){if(e.origin===location.origin&&e.data===${JSON.stringify(METHOD_COMPLETE_MESSAGE)})go();});
setTimeout(go,Number(d.timeout));
var f=document.getElementById('method');if(f)f.submit();else go();
})();`;
const NOTIFY_PARENT = `parent.postMessage(${JSON.stringify(METHOD_COMPLETE_MESSAGE)},location.origin);`;

/**
 * The 3DS Method page: POSTs `threeDSMethodData` to the ACS's method URL inside a hidden iframe, waits for the
 * callback (message from the method-notification page) at most `timeoutMs`, then opens `continueUrl`. Without a
 * method URL it continues at once (threeDSCompInd U). Without JavaScript: a Continue link (the method cannot run).
 */
export function MethodPage(props: {
  nonce: string;
  lang: string;
  threeDSMethodURL?: string;
  threeDSMethodData?: string;
  continueUrl: string;
  timeoutMs: number;
}): VNode {
  return (
    <Frame
      lang={props.lang}
      title="Checking your card"
      nonce={props.nonce}
      script={METHOD_SCRIPT}
      data={{ next: props.continueUrl, timeout: String(props.timeoutMs) }}
    >
      <h1>Checking your card</h1>
      <p role="status">Your bank is checking this device. This takes a few seconds.</p>
      {props.threeDSMethodURL !== undefined && props.threeDSMethodData !== undefined && (
        <>
          <iframe name="threeDSMethodFrame" class="method-frame" title="Card check by your bank" tabIndex={-1} />
          <form id="method" method="post" action={props.threeDSMethodURL} target="threeDSMethodFrame">
            <input type="hidden" name="threeDSMethodData" value={props.threeDSMethodData} />
          </form>
        </>
      )}
      <noscript>
        <a class="button" href={props.continueUrl}>
          Continue
        </a>
      </noscript>
    </Frame>
  );
}

/** Served inside the method iframe when the ACS calls back: tells the parent page that the method completed. */
export function MethodNotificationPage(props: { nonce: string }): VNode {
  return (
    <Frame lang="en" title="Card check complete" nonce={props.nonce} script={NOTIFY_PARENT}>
      <p>Card check complete.</p>
    </Frame>
  );
}

/** POSTs the browser's `creq` to the ACS's acsURL (EMVCo browser challenge), automatically or by button. */
export function ChallengeRedirectPage(props: { nonce: string; lang: string; acsURL: string; creq: string }): VNode {
  return (
    <Frame lang={props.lang} title="Verify your purchase" nonce={props.nonce} script={AUTO_SUBMIT}>
      <h1>Verify your purchase</h1>
      <p role="status">Taking you to your bank to confirm this payment.</p>
      <form id="autopost" method="post" action={props.acsURL}>
        <input type="hidden" name="creq" value={props.creq} />
        <noscript>
          <button class="button" type="submit">
            Continue to your bank
          </button>
        </noscript>
      </form>
    </Frame>
  );
}

/** The result is not in yet: re-checks `retryUrl` every 2 seconds (meta refresh; no script needed). */
export function WaitingPage(props: { nonce: string; lang: string; retryUrl?: string }): VNode {
  return (
    <Frame
      lang={props.lang}
      title="Waiting for your bank"
      nonce={props.nonce}
      head={props.retryUrl && <meta http-equiv="refresh" content={`2;url=${props.retryUrl}`} />}
    >
      <h1>Waiting for your bank</h1>
      <p role="status">Your bank is confirming the payment. This page updates by itself.</p>
      {props.retryUrl && (
        <a class="button" href={props.retryUrl}>
          Check again
        </a>
      )}
    </Frame>
  );
}

/**
 * The payment is final: sends the browser to the merchant's `returnUrl` (script, and a meta refresh without
 * JavaScript; a navigation, not a redirect of the ACS's form POST, so no form-action rule blocks the merchant's
 * origin), with a visible link; without `returnUrl`, shows the outcome.
 */
export function FinishedPage(props: { nonce: string; lang: string; succeeded: boolean; returnUrl?: string }): VNode {
  const title = props.succeeded ? 'Payment completed' : 'Payment not completed';
  if (props.returnUrl === undefined) {
    return (
      <Frame lang={props.lang} title={title} nonce={props.nonce}>
        <h1>{title}</h1>
        <p role="status">{props.succeeded ? 'You can close this window.' : 'The payment was not completed.'}</p>
      </Frame>
    );
  }
  return (
    <Frame
      lang={props.lang}
      title={title}
      nonce={props.nonce}
      script={NAVIGATE}
      data={{ next: props.returnUrl }}
      head={
        <noscript>
          <meta http-equiv="refresh" content={`0;url=${props.returnUrl}`} />
        </noscript>
      }
    >
      <h1>{title}</h1>
      <p role="status">Returning to the shop.</p>
      <a class="button" href={props.returnUrl}>
        Return to the shop
      </a>
    </Frame>
  );
}

/** Unknown payment, wrong token or expired link: one answer for all (no oracle). */
export function InvalidLinkPage(props: { nonce: string }): VNode {
  return (
    <Frame lang="en" title="Link not valid" nonce={props.nonce}>
      <h1>Link not valid</h1>
      <p role="status">This payment link is invalid or has expired. Please return to the shop and start again.</p>
    </Frame>
  );
}
