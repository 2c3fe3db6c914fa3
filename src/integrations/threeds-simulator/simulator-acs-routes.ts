/**
 * The simulated ACS's pages (DESIGN.md §1 threeds-simulator): the 3DS Method page, the browser challenge page
 * (CReq in, CRes out through the browser, RReq to the 3DS Server first) and the app challenge endpoint that stands
 * in for the 3DS SDK ↔ ACS exchange. Registered by app.ts only; Kassa's own pages never depend on them.
 */

import type { FastifyInstance } from 'fastify';
import { UUID_PATTERN } from '../../domain/ports/id-generator.js';
import { decodeBrowserMessage, encodeBrowserMessage } from '../../domain/threeds/browser-messages.js';
import {
  SIMULATOR_CHALLENGE_OTP,
  type SimulatorChallengeAction,
  type SimulatorDirectoryServer,
} from './simulator-directory-server.js';
import { esc, nonce, originOf, sendAutoPostPage, sendSimulatorPage } from './simulator-html.js';

/** Options of simulatorAcsRoutes. */
export interface SimulatorAcsRoutesOptions {
  simulator: SimulatorDirectoryServer;
}

/** Paths of the simulated ACS (the threeDSMethodURL and acsURL the simulated DS hands out). */
export const SIMULATOR_ACS_PATHS = {
  method: '/simulator/acs/method',
  challenge: '/simulator/acs/challenge',
  challengeSubmit: '/simulator/acs/challenge/submit',
  appChallenge: '/simulator/acs/app-challenge',
} as const;

/** EMVCo challengeWindowSize → width × height in CSS pixels (05: full screen). */
const WINDOW_SIZES: Record<string, string> = {
  '01': 'max-width:250px;min-height:400px',
  '02': 'max-width:390px;min-height:400px',
  '03': 'max-width:500px;min-height:600px',
  '04': 'max-width:600px;min-height:400px',
  '05': 'max-width:none;min-height:100vh;margin:0;border-radius:0',
};

const UUID = UUID_PATTERN;

type Form = Record<string, string | undefined>;

function errorPage(message: string) {
  return {
    title: 'Kassa Sandbox Bank',
    nonce: nonce(),
    status: 400,
    body: `<main><div class="bank">Kassa Sandbox Bank</div><h1>Request not accepted</h1><p>${esc(message)}</p></main>`,
  };
}

/** Fastify plugin: the simulated ACS's routes. */
export async function simulatorAcsRoutes(app: FastifyInstance, opts: SimulatorAcsRoutesOptions): Promise<void> {
  const { simulator } = opts;

  // 3DS Method (EMVCo): the 3DS Server's hidden iframe POSTs threeDSMethodData; the ACS "fingerprints" the browser and
  // POSTs threeDSMethodData back to threeDSMethodNotificationURL (unless configured not to: methodCallback false).
  app.post(SIMULATOR_ACS_PATHS.method, { schema: { hide: true } }, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const data = decodeBrowserMessage(form.threeDSMethodData);
    const serverTransID = data?.threeDSServerTransID;
    const notificationURL = data?.threeDSMethodNotificationURL;
    if (typeof serverTransID !== 'string' || !UUID.test(serverTransID) || typeof notificationURL !== 'string') {
      return sendSimulatorPage(reply, errorPage('threeDSMethodData is missing or malformed.'));
    }
    if (originOf(notificationURL) === undefined) {
      return sendSimulatorPage(reply, errorPage('threeDSMethodNotificationURL must be an http(s) URL.'));
    }
    simulator.recordMethod(serverTransID);
    if (!simulator.methodCallback) {
      return sendSimulatorPage(reply, {
        title: '3DS Method',
        nonce: nonce(),
        body: '<main><p>Collecting device information.</p></main>',
      });
    }
    return sendAutoPostPage(reply, {
      title: '3DS Method',
      action: notificationURL,
      fields: { threeDSMethodData: encodeBrowserMessage({ threeDSServerTransID: serverTransID }) },
      message: 'Device information collected.',
    });
  });

  // Browser challenge (EMVCo): the browser POSTs `creq`; the ACS shows its one-time-code page.
  app.post(SIMULATOR_ACS_PATHS.challenge, { schema: { hide: true } }, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const creq = decodeBrowserMessage(form.creq);
    const acsTransID = creq?.acsTransID;
    const transaction = typeof acsTransID === 'string' ? simulator.transactions.find(acsTransID) : undefined;
    if (
      creq === undefined ||
      transaction === undefined ||
      transaction.deviceChannel !== '02' ||
      transaction.transStatus !== 'C' ||
      creq.messageType !== 'CReq' ||
      creq.threeDSServerTransID !== transaction.threeDSServerTransID ||
      creq.messageVersion !== transaction.messageVersion ||
      typeof creq.challengeWindowSize !== 'string' ||
      WINDOW_SIZES[creq.challengeWindowSize] === undefined
    ) {
      return sendSimulatorPage(reply, errorPage('The challenge request (creq) is invalid or has expired.'));
    }
    const n = nonce();
    const session = form.threeDSSessionData;
    return sendSimulatorPage(reply, {
      title: 'Kassa Sandbox Bank: verify your purchase',
      nonce: n,
      formAction: ["'self'"],
      style: `main{${WINDOW_SIZES[creq.challengeWindowSize]}}`,
      body: `<main>
<div class="bank">Kassa Sandbox Bank</div>
<h1>Verify your purchase</h1>
<p>We sent a one-time code to your phone.${transaction.acsChallengeMandated ? ' Your bank requires this check.' : ''}</p>
<p class="hint">Sandbox: the code is <strong>${SIMULATOR_CHALLENGE_OTP}</strong>; any other code fails.</p>
<form method="post" action="${SIMULATOR_ACS_PATHS.challengeSubmit}">
<input type="hidden" name="acsTransID" value="${esc(transaction.acsTransID)}">
${session === undefined ? '' : `<input type="hidden" name="threeDSSessionData" value="${esc(session)}">`}
<label for="otp">One-time code</label>
<input type="text" id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" maxlength="8" autofocus>
<div class="actions">
<button type="submit" name="action" value="submit">Submit</button>
<button type="submit" name="action" value="cancel" class="secondary" formnovalidate>Cancel</button>
</div>
</form>
</main>`,
    });
  });

  // The cardholder's answer: RReq to the 3DS Server first, then the CRes through the browser to notificationURL.
  app.post(SIMULATOR_ACS_PATHS.challengeSubmit, { schema: { hide: true } }, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const action: SimulatorChallengeAction = form.action === 'cancel' ? { cancel: true } : { otp: form.otp ?? '' };
    const result =
      typeof form.acsTransID === 'string'
        ? await simulator.completeChallenge(form.acsTransID, '02', action)
        : undefined;
    const notificationURL = result?.transaction.notificationURL;
    if (result === undefined || notificationURL === undefined) {
      return sendSimulatorPage(reply, errorPage('This challenge is unknown or already finished.'));
    }
    const fields: Record<string, string> = { cres: encodeBrowserMessage(result.cres) };
    if (form.threeDSSessionData !== undefined) fields.threeDSSessionData = form.threeDSSessionData;
    return sendAutoPostPage(reply, {
      title: 'Kassa Sandbox Bank',
      action: notificationURL,
      fields,
      message: 'Returning to the merchant.',
    });
  });

  // App challenge: stands in for the 3DS SDK ↔ ACS exchange (EMVCo encrypts it with keys agreed through
  // acsSignedContent; the sandbox takes the cardholder's entry as plain JSON). Body:
  // {acsTransID, challengeDataEntry?: "<code>", challengeCancel?: "01"}. Answers {cres} after the RReq is delivered.
  app.post(SIMULATOR_ACS_PATHS.appChallenge, { schema: { hide: true } }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const action: SimulatorChallengeAction =
      body.challengeCancel === '01' ? { cancel: true } : { otp: String(body.challengeDataEntry ?? '') };
    const result =
      typeof body.acsTransID === 'string'
        ? await simulator.completeChallenge(body.acsTransID, '01', action)
        : undefined;
    if (result === undefined) {
      return reply
        .status(404)
        .send({ error: 'unknown_transaction', message: 'no open app challenge with this acsTransID' });
    }
    return { cres: result.cres };
  });
}
