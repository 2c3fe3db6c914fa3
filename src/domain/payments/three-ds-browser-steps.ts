/**
 * The 3-D Secure steps that run in the cardholder's browser on Kassa's own pages (src/hosted/threeds): starting a
 * browser authentication, the 3DS Method page and its callback, the continuation that sends the AReq, the challenge
 * page and the challenge notification (EMVCo notificationURL). The pages reach these through PaymentService.
 */
import type { Merchant } from '../merchants/merchant.js';
import { isHexId } from '../ports/id-generator.js';
import { consentCovers } from '../surcharge/surcharge-consent.js';
import { decodeBrowserMessage, encodeBrowserMessage, readCRes } from '../threeds/browser-messages.js';
import type { ThreeDSPhase, ThreeDSTransaction } from '../threeds/three-ds-transaction.js';
import { type AuthenticationCommand, authenticateAndAuthorize } from './authorize-payment.js';
import { cardFingerprint } from './card-checks.js';
import { finishPayment } from './finish-payment.js';
import type { Payment } from './payment.js';
import { deviceChannelOf, uuidFromPayId } from './payment.js';
import { linkTtlMs, type PaymentServiceDeps, THREE_DS_METHOD_TIMEOUT_MS } from './payment-deps.js';
import type { CardInput } from './payment-request.js';
import { returnUrlOf } from './return-url.js';

/**
 * What Kassa's 3-D Secure pages (src/hosted/threeds) show next for a payment:
 * - INVALID_LINK: unknown payment, wrong or expired token (the page answers 404 without saying which);
 * - METHOD: run the 3DS Method: POST `threeDSMethodData` to `threeDSMethodURL` in a hidden iframe, wait at most
 *   `timeoutMs` for the callback, then open `continueUrl` (without `threeDSMethodURL`: open it at once, U);
 * - CHALLENGE: POST `creq` to `acsURL` (EMVCo browser challenge, auto-submitting form);
 * - WAITING: the result is not in yet (RReq or authorization pending); `retryUrl` re-checks; `cardholderInfo`, when
 *   known, is the ACS's text for the cardholder (EMVCo ARes cardholderInfo, decoupled), shown on the page;
 * - FINISHED: the payment is final; send the browser to `returnUrl` (urls.return or, after a cancelled challenge,
 *   urls.cancel, with `PayId`), or show the outcome when the merchant gave no URL.
 */
export type ThreeDSBrowserStep =
  | { kind: 'INVALID_LINK' }
  | {
      kind: 'METHOD';
      payment: Payment;
      threeDSMethodURL?: string;
      threeDSMethodData?: string;
      continueUrl: string;
      timeoutMs: number;
    }
  | { kind: 'CHALLENGE'; payment: Payment; acsURL: string; creq: string }
  | { kind: 'WAITING'; payment: Payment; retryUrl?: string; cardholderInfo?: string }
  | { kind: 'FINISHED'; payment: Payment; returnUrl?: string };

/** Phases in which a payment waits for the cardholder's browser, so its redirect link is shown. */
const BROWSER_PHASES: readonly ThreeDSPhase[] = ['METHOD', 'CHALLENGE'];

/**
 * Starts a browser authentication that runs in Kassa's own pages (DIRECT `browserAuthentication: "REDIRECT"`, and
 * the hosted flows): vaults the card (encrypted), stores the 3-D Secure state in phase METHOD and returns the
 * payment PENDING (60010003) with `redirectHref` to the 3DS Method page. The AReq is sent when the page continues
 * (continueAfterThreeDSMethod), with threeDSCompInd Y, N or U from the method's outcome (spec §2.1).
 * A card outside every 3-D Secure range is not enrolled: it is authorized at once, as in the synchronous flow.
 * `pending` must be stored already (status PENDING). `vaulted`: the card is in the vault already, for at least the
 * link lifetime (the hosted card step put it there), so it is not written again.
 */
export async function startBrowserAuthentication(
  deps: PaymentServiceDeps,
  merchant: Merchant,
  pending: Payment,
  card: CardInput,
  cmd: Pick<AuthenticationCommand, 'browserInfo' | 'challengePreference' | 'threeDsPolicy'>,
  options: { vaulted?: boolean } = {},
): Promise<Payment> {
  const { store, clock, ids } = deps;
  let threeDSMethodURL: string | undefined;
  try {
    const range = await deps.directoryServer.cardRange(card.number);
    if (range === undefined) {
      return authenticateAndAuthorize(deps, merchant, pending, card, { ...cmd, channel: 'ECOM' }, undefined, {
        range,
      });
    }
    threeDSMethodURL = range.threeDSMethodURL;
  } catch (error) {
    deps.onUnexpectedError?.(pending.payId, 'three-ds', error);
    return finishPayment(deps, merchant, pending, '20010004');
  }
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + linkTtlMs(deps));
  if (!options.vaulted) await deps.cardVault.put(pending.payId, card, expiresAt);
  const transaction: ThreeDSTransaction = {
    payId: pending.payId,
    merchantId: merchant.merchantId,
    phase: 'METHOD',
    methodStatus: threeDSMethodURL === undefined ? 'UNAVAILABLE' : 'NOT_STARTED',
    ...(threeDSMethodURL !== undefined && { threeDSMethodURL }),
    authentication: {
      challengePreference: cmd.challengePreference,
      ...(cmd.browserInfo !== undefined && { browserInfo: cmd.browserInfo }),
      ...(cmd.threeDsPolicy !== undefined && { threeDsPolicy: cmd.threeDsPolicy }),
    },
    redirectNonce: ids.randomToken(16),
    redirectExpiresAt: expiresAt,
    createdAt: now,
    updatedAt: now,
  };
  const payment: Payment = { ...pending, responseCode: '60010003', updatedAt: now };
  await store.transaction(async (tx) => {
    await tx.payments.update(payment);
    await tx.threeDSTransactions.save(transaction);
  });
  return { ...payment, redirectHref: deps.links.threeDSPage('method', payment.payId, transaction.redirectNonce) };
}

/**
 * The 3DS Method page of a payment (GET /3ds/method/:payId?token=): marks the method as started and returns what
 * the page needs (METHOD), or the step the payment has moved on to. `threeDSMethodData` is base64url of
 * `{threeDSServerTransID, threeDSMethodNotificationURL}` (EMVCo).
 */
export async function threeDSMethodStep(
  deps: PaymentServiceDeps,
  payId: string,
  token: unknown,
): Promise<ThreeDSBrowserStep> {
  const found = await openLink(deps, payId, token);
  if (found === undefined) return { kind: 'INVALID_LINK' };
  const { transaction: t, payment } = found;
  if (t.phase !== 'METHOD') return currentStep(deps, t, payment);
  const continueUrl = deps.links.threeDSPage('continue', payId, t.redirectNonce);
  const timeoutMs = deps.threeDSMethodTimeoutMs ?? THREE_DS_METHOD_TIMEOUT_MS;
  if (t.threeDSMethodURL === undefined) return { kind: 'METHOD', payment, continueUrl, timeoutMs };
  if (t.methodStatus === 'NOT_STARTED') {
    const now = deps.clock.now();
    await deps.store.threeDSTransactions.save({ ...t, methodStatus: 'STARTED', methodStartedAt: now, updatedAt: now });
  }
  const threeDSMethodData = encodeBrowserMessage({
    threeDSServerTransID: uuidFromPayId(payId),
    threeDSMethodNotificationURL: deps.links.methodNotificationUrl(payId),
  });
  return { kind: 'METHOD', payment, threeDSMethodURL: t.threeDSMethodURL, threeDSMethodData, continueUrl, timeoutMs };
}

/**
 * The ACS's 3DS Method callback (POST /3ds/method-notification/:payId with `threeDSMethodData`): records that the
 * method completed, so the AReq carries threeDSCompInd Y. The data must name this payment's threeDSServerTransID.
 * @returns true when recorded (false: unknown payment, mismatching data, or the AReq has been sent already).
 */
export async function recordThreeDSMethodCompletion(
  deps: PaymentServiceDeps,
  payId: string,
  threeDSMethodData: unknown,
): Promise<boolean> {
  if (!isHexId(payId)) return false;
  const data = decodeBrowserMessage(threeDSMethodData);
  if (data?.threeDSServerTransID !== uuidFromPayId(payId)) return false;
  return deps.store.threeDSTransactions.markMethodCompleted(payId, deps.clock.now());
}

/**
 * Continues after the 3DS Method page (GET /3ds/continue/:payId?token=): sends the AReq with threeDSCompInd Y (the
 * ACS called back), N (it did not, within the page's wait) or U (no method URL), then returns CHALLENGE (browser
 * C), WAITING or FINISHED. Only one request acts (phase compare-and-set); others get the current step.
 */
export async function continueAfterThreeDSMethod(
  deps: PaymentServiceDeps,
  payId: string,
  token: unknown,
): Promise<ThreeDSBrowserStep> {
  const found = await openLink(deps, payId, token);
  if (found === undefined) return { kind: 'INVALID_LINK' };
  const { transaction: t, payment } = found;
  const { store, clock } = deps;
  if (
    t.phase !== 'METHOD' ||
    !(await store.threeDSTransactions.claimPhase(payId, 'METHOD', 'AUTHENTICATING', clock.now()))
  ) {
    return currentStep(deps, (await store.threeDSTransactions.find(payId)) ?? t, payment);
  }
  const threeDSCompInd = t.methodStatus === 'UNAVAILABLE' ? 'U' : t.methodStatus === 'COMPLETED' ? 'Y' : 'N';
  const [merchant, card] = await Promise.all([
    store.merchants.find(t.merchantId),
    deps.cardVault.read(payId, clock.now()),
  ]);
  if (merchant === undefined) return { kind: 'INVALID_LINK' };
  if (card === undefined) {
    return { kind: 'FINISHED', payment: await finishPayment(deps, merchant, payment, '20010006') };
  }
  // Money guard: a hosted payment goes to the AReq and the acquirer only with the card and amounts the cardholder
  // confirmed on the review step (its stored consent). The card step refuses a new card once Pay was pressed; should
  // another tab's card reach the vault regardless, it is never authorized: the payment ends before the AReq.
  if (
    payment.integrationType === 'HOSTED' &&
    !consentCovers(payment.surchargeConsent, payment, cardFingerprint(card.number, deps.dataKey))
  ) {
    return { kind: 'FINISHED', payment: await finishPayment(deps, merchant, payment, '20010004') };
  }
  // In flight from here (AReq, then the acquirer): 60000001 is what AuthorizationRecovery looks for, should this
  // request die or lose its database before the result is written.
  const inFlight: Payment = { ...payment, responseCode: '60000001', updatedAt: clock.now() };
  await store.payments.update(inFlight);
  const next = await authenticateAndAuthorize(
    deps,
    merchant,
    inFlight,
    card,
    {
      channel: 'ECOM',
      browserInfo: t.authentication?.browserInfo,
      challengePreference: t.authentication?.challengePreference ?? 'NO_PREFERENCE',
      threeDsPolicy: t.authentication?.threeDsPolicy,
    },
    threeDSCompInd,
  );
  return currentStep(deps, (await store.threeDSTransactions.find(payId)) ?? t, next);
}

/**
 * The challenge page of a payment (GET /3ds/challenge/:payId?token=, the `_links.redirect.href` of a browser C):
 * CHALLENGE with the acsURL and `creq` to POST, or the step the payment has moved on to.
 */
export async function challengeStep(
  deps: PaymentServiceDeps,
  payId: string,
  token: unknown,
): Promise<ThreeDSBrowserStep> {
  const found = await openLink(deps, payId, token);
  if (found === undefined) return { kind: 'INVALID_LINK' };
  return currentStep(deps, found.transaction, found.payment);
}

/**
 * The browser's arrival at the notificationURL after a challenge (POST /3ds/challenge-notification/:payId with
 * `cres`). The CRes must name this payment's threeDSServerTransID and acsTransID (known only to Kassa, the ACS and
 * that browser); its transStatus is ignored: the result is the RReq's. Returns FINISHED (final payment) or WAITING.
 */
export async function challengeNotification(
  deps: PaymentServiceDeps,
  payId: string,
  cres: unknown,
): Promise<ThreeDSBrowserStep> {
  if (!isHexId(payId)) return { kind: 'INVALID_LINK' };
  const t = await deps.store.threeDSTransactions.find(payId);
  if (t?.acsTransID === undefined) return { kind: 'INVALID_LINK' };
  if (readCRes(cres, { threeDSServerTransID: uuidFromPayId(payId), acsTransID: t.acsTransID }) === undefined) {
    return { kind: 'INVALID_LINK' };
  }
  const payment = await deps.store.payments.findByPayId(t.merchantId, payId);
  if (payment === undefined) return { kind: 'INVALID_LINK' };
  if (payment.status === 'PENDING') {
    return { kind: 'WAITING', payment, retryUrl: deps.links.threeDSPage('challenge', payId, t.redirectNonce) };
  }
  return { kind: 'FINISHED', payment, returnUrl: (deps.returnUrl ?? returnUrlOf)(payment) };
}

/**
 * The page a PENDING browser payment waits on (3DS Method or challenge), for `_links.redirect.href` on reads; undefined
 * when it waits for nothing in the browser or its link expired.
 */
export async function browserRedirectOf(deps: PaymentServiceDeps, payment: Payment): Promise<string | undefined> {
  if (payment.status !== 'PENDING' || deviceChannelOf(payment.channel) !== 'BROWSER') return undefined;
  const t = await deps.store.threeDSTransactions.find(payment.payId);
  if (t === undefined || !BROWSER_PHASES.includes(t.phase)) return undefined;
  if (t.redirectExpiresAt.getTime() <= deps.clock.now().getTime()) return undefined;
  return deps.links.threeDSPage(t.phase === 'METHOD' ? 'method' : 'challenge', payment.payId, t.redirectNonce);
}

/**
 * The Kassa page a PENDING browser payment continues on while its 3-D Secure is open: the 3DS Method page before the
 * AReq, else the challenge page (which shows the open challenge, or waits for the result: decoupled, RReq pending).
 * Undefined when the payment is not PENDING, has no 3-D Secure in the browser, or its link expired. What a hosted
 * payment's own link resumes (docs/3ds.md: the redirect link stays the same while the challenge is open).
 */
export async function threeDSResumeHrefOf(deps: PaymentServiceDeps, payment: Payment): Promise<string | undefined> {
  if (payment.status !== 'PENDING' || deviceChannelOf(payment.channel) !== 'BROWSER') return undefined;
  const t = await deps.store.threeDSTransactions.find(payment.payId);
  if (t === undefined || t.phase === 'DONE' || t.phase === 'APP_CHALLENGE') return undefined;
  if (t.redirectExpiresAt.getTime() <= deps.clock.now().getTime()) return undefined;
  return deps.links.threeDSPage(t.phase === 'METHOD' ? 'method' : 'challenge', payment.payId, t.redirectNonce);
}

/** The stored state behind a link, when the token is right and the link has not expired. */
async function openLink(
  deps: PaymentServiceDeps,
  payId: string,
  token: unknown,
): Promise<{ transaction: ThreeDSTransaction; payment: Payment } | undefined> {
  if (!isHexId(payId)) return undefined;
  const t = await deps.store.threeDSTransactions.find(payId);
  if (t === undefined || !deps.links.verifyThreeDSToken(payId, t.redirectNonce, token)) return undefined;
  if (t.redirectExpiresAt.getTime() <= deps.clock.now().getTime()) return undefined;
  const payment = await deps.store.payments.findByPayId(t.merchantId, payId);
  return payment === undefined ? undefined : { transaction: t, payment };
}

/** The browser step matching a payment's stored state. */
function currentStep(deps: PaymentServiceDeps, t: ThreeDSTransaction, payment: Payment): ThreeDSBrowserStep {
  if (payment.status !== 'PENDING') {
    return { kind: 'FINISHED', payment, returnUrl: (deps.returnUrl ?? returnUrlOf)(payment) };
  }
  if (t.phase === 'CHALLENGE' && t.acsURL !== undefined && t.creq !== undefined) {
    return { kind: 'CHALLENGE', payment, acsURL: t.acsURL, creq: t.creq };
  }
  if (t.phase === 'METHOD') {
    return {
      kind: 'METHOD',
      payment,
      continueUrl: deps.links.threeDSPage('continue', t.payId, t.redirectNonce),
      timeoutMs: deps.threeDSMethodTimeoutMs ?? THREE_DS_METHOD_TIMEOUT_MS,
    };
  }
  return {
    kind: 'WAITING',
    payment,
    retryUrl: deps.links.threeDSPage('challenge', t.payId, t.redirectNonce),
    ...(payment.threeDS?.cardholderInfo !== undefined && { cardholderInfo: payment.threeDS.cardholderInfo }),
  };
}
