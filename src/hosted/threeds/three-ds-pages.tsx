/**
 * Kassa's own 3-D Secure pages (DESIGN.md §6, §8): the 3DS Method page, the challenge redirect, the method
 * notification (inside the method iframe), waiting, finished and invalid-link pages. Server-rendered with Preact
 * (auto-escaped); every inline script and style carries the response's CSP nonce; scripts are fixed text that read
 * their data from `data-*` attributes, so nothing request-derived is ever interpolated into script.
 * Works without JavaScript: every automatic step has a visible button or link in <noscript>.
 */
import type { VNode } from 'preact';
import type { Language } from '../i18n.js';
import { Layout } from '../pages/layout.js';
import { THREE_DS_MESSAGES } from './three-ds-i18n.js';

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
/**
 * The response header naming the browser step a 3-D Secure page shows (ThreeDSBrowserStep kind): the waiting page's
 * script polls its retry URL and moves on once the step is no longer WAITING; a 5xx (the database or the node briefly
 * unavailable) or a network error is polled again after 5 s, not taken for a change of step.
 */
export const THREE_DS_STEP_HEADER = 'x-kassa-3ds-step';
const WAITING_SCRIPT = `(function(){
var d=document.body.dataset,s=document.getElementById('waiting-status');
function go(){if(s)s.textContent=d.done;location.replace(d.next);}
function check(){fetch(d.next,{cache:'no-store',credentials:'same-origin'}).then(function(r){
if(r.status>=500)setTimeout(check,5000);
else if(r.ok&&r.headers.get(${JSON.stringify(THREE_DS_STEP_HEADER)})==='WAITING')setTimeout(check,2000);else go();
},function(){setTimeout(check,5000);});}
setTimeout(check,2000);
})();`;
const NOTIFY_PARENT = `parent.postMessage(${JSON.stringify(METHOD_COMPLETE_MESSAGE)},location.origin);`;

/**
 * The 3DS Method page: POSTs `threeDSMethodData` to the ACS's method URL inside a hidden iframe, waits for the
 * callback (message from the method-notification page) at most `timeoutMs`, then opens `continueUrl`. Without a
 * method URL it continues at once (threeDSCompInd U). Without JavaScript: a Continue link (the method cannot run).
 */
export function MethodPage(props: {
  nonce: string;
  lang: Language;
  threeDSMethodURL?: string;
  threeDSMethodData?: string;
  continueUrl: string;
  timeoutMs: number;
}): VNode {
  const t = THREE_DS_MESSAGES[props.lang];
  return (
    <Layout
      lang={props.lang}
      title={t.methodTitle}
      nonce={props.nonce}
      inlineScript={METHOD_SCRIPT}
      data={{ next: props.continueUrl, timeout: String(props.timeoutMs) }}
    >
      <h1>{t.methodTitle}</h1>
      <p role="status">{t.methodStatus}</p>
      {props.threeDSMethodURL !== undefined && props.threeDSMethodData !== undefined && (
        <>
          <iframe name="threeDSMethodFrame" class="method-frame" title={t.methodFrameTitle} tabIndex={-1} />
          <form id="method" method="post" action={props.threeDSMethodURL} target="threeDSMethodFrame">
            <input type="hidden" name="threeDSMethodData" value={props.threeDSMethodData} />
          </form>
        </>
      )}
      <noscript>
        <a class="button" href={props.continueUrl}>
          {t.continue}
        </a>
      </noscript>
    </Layout>
  );
}

/** Served inside the method iframe when the ACS calls back: tells the parent page that the method completed. */
export function MethodNotificationPage(props: { nonce: string; lang: Language }): VNode {
  const t = THREE_DS_MESSAGES[props.lang];
  return (
    <Layout lang={props.lang} title={t.methodDone} nonce={props.nonce} inlineScript={NOTIFY_PARENT}>
      <p>{t.methodDone}</p>
    </Layout>
  );
}

/** POSTs the browser's `creq` to the ACS's acsURL (EMVCo browser challenge), automatically or by button. */
export function ChallengeRedirectPage(props: { nonce: string; lang: Language; acsURL: string; creq: string }): VNode {
  const t = THREE_DS_MESSAGES[props.lang];
  return (
    <Layout lang={props.lang} title={t.challengeTitle} nonce={props.nonce} inlineScript={AUTO_SUBMIT}>
      <h1>{t.challengeTitle}</h1>
      <p role="status">{t.challengeStatus}</p>
      <form id="autopost" method="post" action={props.acsURL}>
        <input type="hidden" name="creq" value={props.creq} />
        <noscript>
          <button class="button" type="submit">
            {t.continueToBank}
          </button>
        </noscript>
      </form>
    </Layout>
  );
}

/**
 * The result is not in yet. With JavaScript, WAITING_SCRIPT fetches `retryUrl` every 2 seconds and opens it once its
 * step is no longer WAITING (THREE_DS_STEP_HEADER), saying so in the live status first; no meta refresh (WCAG 2.2.1,
 * axe `meta-refresh`: a timed reload the user cannot stop). Without JavaScript, a Check again link. `cardholderInfo`:
 * the issuer's text of a decoupled ARes (EMV 3DS: the requestor shows it to the cardholder), shown as plain text.
 */
export function WaitingPage(props: {
  nonce: string;
  lang: Language;
  retryUrl?: string;
  cardholderInfo?: string;
}): VNode {
  const t = THREE_DS_MESSAGES[props.lang];
  return (
    <Layout
      lang={props.lang}
      title={t.waitingTitle}
      nonce={props.nonce}
      {...(props.retryUrl !== undefined && {
        inlineScript: WAITING_SCRIPT,
        data: { next: props.retryUrl, done: t.waitingDone },
      })}
    >
      <h1>{t.waitingTitle}</h1>
      {props.cardholderInfo !== undefined && props.cardholderInfo !== '' && (
        <section aria-labelledby="cardholder-info-title">
          <h2 id="cardholder-info-title">{t.cardholderInfo}</h2>
          <p data-testid="cardholder-info">{props.cardholderInfo}</p>
        </section>
      )}
      <p id="waiting-status" role="status" aria-live="polite">
        {t.waitingStatus}
      </p>
      {props.retryUrl && (
        <noscript>
          <a class="button" href={props.retryUrl}>
            {t.checkAgain}
          </a>
        </noscript>
      )}
    </Layout>
  );
}

/**
 * The payment is final: sends the browser to the merchant's `returnUrl` (script, and a meta refresh without
 * JavaScript; a navigation, not a redirect of the ACS's form POST, so no form-action rule blocks the merchant's
 * origin), with a visible link; without `returnUrl`, shows the outcome.
 */
export function FinishedPage(props: { nonce: string; lang: Language; succeeded: boolean; returnUrl?: string }): VNode {
  const t = THREE_DS_MESSAGES[props.lang];
  const title = props.succeeded ? t.succeededTitle : t.failedTitle;
  if (props.returnUrl === undefined) {
    return (
      <Layout lang={props.lang} title={title} nonce={props.nonce}>
        <h1>{title}</h1>
        <p role="status">{props.succeeded ? t.succeededStatus : t.failedStatus}</p>
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
      <p role="status">{t.returning}</p>
      <a class="button" href={props.returnUrl}>
        {t.returnToShop}
      </a>
    </Layout>
  );
}

/** Unknown payment, wrong token or expired link: one answer for all (no oracle). */
export function InvalidLinkPage(props: { nonce: string; lang: Language }): VNode {
  const t = THREE_DS_MESSAGES[props.lang];
  return (
    <Layout lang={props.lang} title={t.invalidTitle} nonce={props.nonce}>
      <h1>{t.invalidTitle}</h1>
      <p role="status">{t.invalidStatus}</p>
    </Layout>
  );
}
