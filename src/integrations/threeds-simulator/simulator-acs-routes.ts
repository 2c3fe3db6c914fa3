/**
 * The simulated ACS's pages (DESIGN.md §1 threeds-simulator): the 3DS Method page, the browser challenge page
 * (CReq in, CRes out through the browser, RReq to the 3DS Server first) and the app challenge endpoint that stands
 * in for the 3DS SDK ↔ ACS exchange. Registered by app.ts only; Kassa's own pages never depend on them.
 */

import type { FastifyInstance } from 'fastify';
import { UUID_PATTERN } from '../../domain/ports/id-generator.js';
import { decodeBrowserMessage, encodeBrowserMessage } from '../../domain/threeds/browser-messages.js';
import type { AcsTransaction } from './acs-transaction-store.js';
import {
  SIMULATOR_CHALLENGE_OTP,
  type SimulatorChallengeAction,
  type SimulatorDirectoryServer,
} from './simulator-directory-server.js';
import { ACS_MESSAGES, type AcsLanguage, acsLanguage } from './simulator-i18n.js';
import {
  BANK_NAME,
  originOf,
  sendAutoPostPage,
  sendChallengePage,
  sendErrorPage,
  sendMessagePage,
} from './simulator-pages.js';

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

/** ISO 4217 numeric → alphabetic code of the currencies the sandbox sees most; others are shown by number. */
const CURRENCY_ALPHA: Record<string, string> = {
  '978': 'EUR',
  '208': 'DKK',
  '752': 'SEK',
  '578': 'NOK',
  '756': 'CHF',
  '826': 'GBP',
  '840': 'USD',
  '985': 'PLN',
};

/** The AReq's purchase amount (minor units, ISO 4217 numeric currency, exponent) for the cardholder to read. */
export function formatPurchase(purchase: NonNullable<AcsTransaction['purchase']>, lang: AcsLanguage): string {
  const exponent = Number(purchase.exponent);
  const value = Number(purchase.amount) / 10 ** exponent;
  const alpha = CURRENCY_ALPHA[purchase.currency];
  if (alpha === undefined) return `${value.toFixed(exponent)} (${purchase.currency})`;
  return new Intl.NumberFormat(lang, {
    style: 'currency',
    currency: alpha,
    minimumFractionDigits: exponent,
    maximumFractionDigits: exponent,
  }).format(value);
}

/** Fastify plugin: the simulated ACS's routes. */
export async function simulatorAcsRoutes(app: FastifyInstance, opts: SimulatorAcsRoutesOptions): Promise<void> {
  const { simulator } = opts;
  /** The page language: the transaction's AReq browserLanguage, else the browser's Accept-Language, else English. */
  const languageOf = (acceptLanguage: string | undefined, transaction?: AcsTransaction) => {
    const lang = acsLanguage(transaction?.browserLanguage, acceptLanguage);
    return { lang, t: ACS_MESSAGES[lang] };
  };

  // 3DS Method (EMVCo): the 3DS Server's hidden iframe POSTs threeDSMethodData; the ACS "fingerprints" the browser and
  // POSTs threeDSMethodData back to threeDSMethodNotificationURL (unless configured not to: methodCallback false).
  app.post(SIMULATOR_ACS_PATHS.method, { schema: { hide: true } }, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const { lang, t } = languageOf(request.headers['accept-language']);
    const data = decodeBrowserMessage(form.threeDSMethodData);
    const serverTransID = data?.threeDSServerTransID;
    const notificationURL = data?.threeDSMethodNotificationURL;
    if (typeof serverTransID !== 'string' || !UUID.test(serverTransID) || typeof notificationURL !== 'string') {
      return sendErrorPage(reply, lang, t, t.methodDataInvalid);
    }
    if (originOf(notificationURL) === undefined) return sendErrorPage(reply, lang, t, t.notificationUrlInvalid);
    simulator.recordMethod(serverTransID);
    if (!simulator.methodCallback) return sendMessagePage(reply, lang, '3DS Method', t.collectingDevice);
    return sendAutoPostPage(reply, {
      lang,
      t,
      title: '3DS Method',
      action: notificationURL,
      fields: { threeDSMethodData: encodeBrowserMessage({ threeDSServerTransID: serverTransID }) },
      message: t.deviceCollected,
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
      const { lang, t } = languageOf(request.headers['accept-language'], transaction);
      return sendErrorPage(reply, lang, t, t.creqInvalid);
    }
    const { lang, t } = languageOf(request.headers['accept-language'], transaction);
    const purchase = transaction.purchase;
    return sendChallengePage(reply, lang, t, {
      acsTransID: transaction.acsTransID,
      ...(form.threeDSSessionData !== undefined && { threeDSSessionData: form.threeDSSessionData }),
      acsChallengeMandated: transaction.acsChallengeMandated,
      ...(purchase && { merchantName: purchase.merchantName, amount: formatPurchase(purchase, lang) }),
      ...(purchase?.cardholderName !== undefined && { cardholderName: purchase.cardholderName }),
      otp: SIMULATOR_CHALLENGE_OTP,
      submitAction: SIMULATOR_ACS_PATHS.challengeSubmit,
      windowStyle: WINDOW_SIZES[creq.challengeWindowSize] ?? '',
    });
  });

  // The cardholder's answer: RReq to the 3DS Server first, then the CRes through the browser to notificationURL.
  app.post(SIMULATOR_ACS_PATHS.challengeSubmit, { schema: { hide: true } }, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const action: SimulatorChallengeAction = form.action === 'cancel' ? { cancel: true } : { otp: form.otp ?? '' };
    const known = typeof form.acsTransID === 'string' ? simulator.transactions.find(form.acsTransID) : undefined;
    const { lang, t } = languageOf(request.headers['accept-language'], known);
    const result =
      typeof form.acsTransID === 'string'
        ? await simulator.completeChallenge(form.acsTransID, '02', action)
        : undefined;
    const notificationURL = result?.transaction.notificationURL;
    if (result === undefined || notificationURL === undefined) {
      return sendErrorPage(reply, lang, t, t.challengeUnknown);
    }
    const fields: Record<string, string> = { cres: encodeBrowserMessage(result.cres) };
    if (form.threeDSSessionData !== undefined) fields.threeDSSessionData = form.threeDSSessionData;
    return sendAutoPostPage(reply, {
      lang,
      t,
      title: BANK_NAME,
      action: notificationURL,
      fields,
      message: t.returning,
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
