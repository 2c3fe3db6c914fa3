/**
 * Kassa's own 3-D Secure pages (DESIGN.md §6, §8): the 3DS Method page, the challenge redirect, the method
 * notification (inside the method iframe), waiting, finished and invalid-link pages. Server-rendered with Preact
 * (auto-escaped); every inline script and style carries the response's CSP nonce; scripts are fixed text that read
 * their data from `data-*` attributes, so nothing request-derived is ever interpolated into script.
 * Works without JavaScript: every automatic step has a visible button or link in <noscript>.
 */
import type { VNode } from 'preact';
import { Layout } from '../pages/layout.js';

/** The message the method-notification page posts to its parent (Kassa's method page, same origin). */
export const METHOD_COMPLETE_MESSAGE = 'kassa:3ds-method-complete';

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
    <Layout
      lang={props.lang}
      title="Checking your card"
      nonce={props.nonce}
      inlineScript={METHOD_SCRIPT}
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
    </Layout>
  );
}

/** Served inside the method iframe when the ACS calls back: tells the parent page that the method completed. */
export function MethodNotificationPage(props: { nonce: string }): VNode {
  return (
    <Layout lang="en" title="Card check complete" nonce={props.nonce} inlineScript={NOTIFY_PARENT}>
      <p>Card check complete.</p>
    </Layout>
  );
}

/** POSTs the browser's `creq` to the ACS's acsURL (EMVCo browser challenge), automatically or by button. */
export function ChallengeRedirectPage(props: { nonce: string; lang: string; acsURL: string; creq: string }): VNode {
  return (
    <Layout lang={props.lang} title="Verify your purchase" nonce={props.nonce} inlineScript={AUTO_SUBMIT}>
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
    </Layout>
  );
}

/** The result is not in yet: re-checks `retryUrl` every 2 seconds (meta refresh; no script needed). */
export function WaitingPage(props: { nonce: string; lang: string; retryUrl?: string }): VNode {
  return (
    <Layout
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
    </Layout>
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
      <Layout lang={props.lang} title={title} nonce={props.nonce}>
        <h1>{title}</h1>
        <p role="status">{props.succeeded ? 'You can close this window.' : 'The payment was not completed.'}</p>
      </Layout>
    );
  }
  return (
    <Layout
      lang={props.lang}
      title={title}
      nonce={props.nonce}
      inlineScript={NAVIGATE}
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
    </Layout>
  );
}

/** Unknown payment, wrong token or expired link: one answer for all (no oracle). */
export function InvalidLinkPage(props: { nonce: string }): VNode {
  return (
    <Layout lang="en" title="Link not valid" nonce={props.nonce}>
      <h1>Link not valid</h1>
      <p role="status">This payment link is invalid or has expired. Please return to the shop and start again.</p>
    </Layout>
  );
}
