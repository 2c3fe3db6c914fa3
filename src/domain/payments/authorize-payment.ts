/**
 * Authorization of a card payment: 3-D Secure as 3DS Server (AReq/ARes), the Authentication Notification, then the
 * acquirer; a challenge or decoupled authentication parks the payment until the RReq (three-ds-results.ts). Every
 * path ends through finishPayment (finish-payment.ts), so the state machine decides the final status.
 * Over 300 lines on purpose: 3-D Secure and authorization are one unit of work on the hot path (one durable write
 * before the acquirer, one after: issue 12), which is why they are not two files.
 */
import type { Merchant } from '../merchants/merchant.js';
import { notificationTarget } from '../notifications/notification.js';
import type { AcquirerAuthorizationResult, StoredCredentialIndicator } from '../ports/acquirer.js';
import { isoTime } from '../ports/clock.js';
import { newHexId } from '../ports/id-generator.js';
import type { Store } from '../ports/store.js';
import {
  type AuthenticationResponse,
  buildAuthenticationResponse,
  type ChallengeRequest,
} from '../threeds/authentication-response.js';
import { validateAuthenticationResponse } from '../threeds/authentication-response-validator.js';
import { encodeCReq } from '../threeds/browser-messages.js';
import type {
  AuthenticationRequest,
  AuthenticationResponseMessage,
  CardRangeData,
  TransStatus,
} from '../threeds/three-ds-messages.js';
import { type AuthenticationOutcome, authenticate, threeDSResultFromARes } from '../threeds/three-ds-server.js';
import type { ThreeDSTransaction } from '../threeds/three-ds-transaction.js';
import { finishPayment } from './finish-payment.js';
import type { Payment, PaymentOperation } from './payment.js';
import { deviceChannelOf, uuidFromPayId } from './payment.js';
import { linkTtlMs, type PaymentServiceDeps } from './payment-deps.js';
import type { CardInput, CreatePaymentCommand } from './payment-request.js';
import { type ResponseCode, responseCodeFromAcquirer } from './response-codes.js';
import { cardholderIndicator, storeCredential } from './stored-credential-payment.js';

/** What 3-D Secure's transStatus means for the payment (DESIGN.md §6). */
export type AfterAuthentication =
  | { next: 'AUTHORIZE' }
  | { next: 'FAIL'; responseCode: ResponseCode }
  | { next: 'AWAIT_RESULT'; responseCode: ResponseCode };

/**
 * Y/A → authorize with liability shift; U → authorize without; I → authorize; N/R → fail; C/D → the payment stays
 * PENDING until the RReq (spec §3, DESIGN.md §6). `transStatusReason` 26 on N (authentication attempted but not
 * performed: the cardholder cancelled the challenge) fails with 20010003 instead of 20010001.
 */
export function decideAfterAuthentication(transStatus: TransStatus, transStatusReason?: string): AfterAuthentication {
  switch (transStatus) {
    case 'Y':
    case 'A':
    case 'I':
    case 'U':
      return { next: 'AUTHORIZE' };
    case 'N':
      return { next: 'FAIL', responseCode: transStatusReason === '26' ? '20010003' : '20010001' };
    case 'R':
      return { next: 'FAIL', responseCode: '20010002' };
    case 'C':
      return { next: 'AWAIT_RESULT', responseCode: '60010001' };
    case 'D':
      return { next: 'AWAIT_RESULT', responseCode: '60010002' };
  }
}

/** The 3-D Secure inputs of an authorization, as the create request (or the stored browser state) gives them. */
export type AuthenticationCommand = Pick<
  CreatePaymentCommand,
  'channel' | 'browserInfo' | 'sdkInfo' | 'challengePreference' | 'threeDsPolicy'
>;

const isChallengeRequest = (r: ChallengeRequest | Record<string, never>): r is ChallengeRequest =>
  r.messageType === 'CReq';

/**
 * 3-D Secure as 3DS Server (spec §1.5, DESIGN.md §6), then the Authentication Notification, then authorization.
 * The DIRECT synchronous browser flow has no 3DS Method step (no Kassa page runs in the cardholder's browser
 * before the AReq), so threeDSCompInd is U when the card range has no method URL and N otherwise; a flow that ran
 * the 3DS Method in Kassa's page passes `threeDSCompInd`.
 * C and D leave the payment PENDING (60010001 / 60010002) with the card vaulted until the RReq
 * (handleResultsRequest); a browser C gets `redirectHref` to Kassa's challenge page.
 * `lookedUp` is the card range when the caller looked it up already: one lookup per request, passed along.
 * `pending` must be stored already (status PENDING). Used by DIRECT creation and by the hosted flows.
 */
export async function authenticateAndAuthorize(
  deps: PaymentServiceDeps,
  merchant: Merchant,
  pending: Payment,
  card: CardInput,
  cmd: AuthenticationCommand,
  threeDSCompInd?: 'Y' | 'N' | 'U',
  lookedUp?: { range: CardRangeData | undefined },
): Promise<Payment> {
  const { clock, links } = deps;
  let payment = pending;
  let outcome: AuthenticationOutcome;
  try {
    const cardRange = lookedUp ? lookedUp.range : await deps.directoryServer.cardRange(card.number);
    outcome = await authenticate(
      deps.directoryServer,
      clock,
      {
        threeDSServerTransID: uuidFromPayId(payment.payId),
        pan: card.number,
        expiryDate: card.expiryDate,
        cardholderName: card.cardholderName,
        amount: { value: payment.value + payment.surcharge.value, currency: payment.currency },
        merchant: { merchantId: merchant.merchantId, name: merchant.name, country: merchant.country },
        channel: deviceChannelOf(cmd.channel),
        browserInfo: cmd.browserInfo,
        sdkInfo: cmd.sdkInfo,
        challengePreference: cmd.challengePreference,
        threeDsPolicy: cmd.threeDsPolicy,
        credentialOnFile: payment.informational?.credentialOnFile,
        threeDSCompInd: !cardRange?.threeDSMethodURL ? 'U' : (threeDSCompInd ?? 'N'),
        notificationURL: links.challengeNotificationUrl(payment.payId),
        threeDSRequestorURL: links.requestorUrl,
        threeDSServerURL: links.resultsUrl,
      },
      { range: cardRange },
    );
  } catch (error) {
    deps.onUnexpectedError?.(payment.payId, 'three-ds', error);
    return finishPayment(deps, merchant, payment, '20010004');
  }

  if (outcome.kind === 'ERROR') return finishPayment(deps, merchant, payment, '20010004');
  if (outcome.kind === 'ARES') {
    const { ares, areq } = outcome;
    payment = { ...payment, threeDS: threeDSResultFromARes(ares) };
    const authenticationResponse = buildAuthenticationResponse(ares, {
      threeDSCompInd: areq.threeDSCompInd,
      challengeWindowSize: cmd.browserInfo?.challengeWindowSize,
      deviceChannel: areq.deviceChannel,
    });
    const decision = decideAfterAuthentication(ares.transStatus, ares.transStatusReason);
    if (decision.next === 'AWAIT_RESULT') {
      return awaitResult(deps, merchant, payment, card, areq, ares, authenticationResponse, decision.responseCode);
    }
    // The 3-D Secure outcome (the payment's threeDS, the Authentication Notification) is written with the result, in
    // the one durable write after the acquirer call (issue 12): a crash in between leaves the payment PENDING 60000001,
    // as a crash during the acquirer call always did.
    const notifyAuthentication = (tx: Store) =>
      enqueueAuthenticationNotification(deps, tx, merchant, payment, authenticationResponse);
    if (decision.next === 'FAIL') {
      return finishPayment(deps, merchant, payment, decision.responseCode, [], notifyAuthentication);
    }
    // A frictionless result with an exemption asked for: the acquirer applies it (a challenge made it moot).
    const exemption = cmd.threeDsPolicy?.exemption?.reason;
    return authorizeAtAcquirer(deps, merchant, payment, card, undefined, exemption, notifyAuthentication);
  }
  return authorizeAtAcquirer(deps, merchant, payment, card, undefined, cmd.threeDsPolicy?.exemption?.reason);
}

/**
 * C or D: vaults the card (encrypted) for the authorization after the RReq, stores the 3-D Secure state, and in
 * one transaction moves the payment to 60010001/60010002 and queues the Authentication Notification.
 */
async function awaitResult(
  deps: PaymentServiceDeps,
  merchant: Merchant,
  pending: Payment,
  card: CardInput,
  areq: AuthenticationRequest,
  ares: AuthenticationResponseMessage,
  authenticationResponse: AuthenticationResponse,
  responseCode: ResponseCode,
): Promise<Payment> {
  const { store, clock, ids } = deps;
  const now = clock.now();
  const existing = await store.threeDSTransactions.find(pending.payId);
  const expiresAt = existing?.redirectExpiresAt ?? new Date(now.getTime() + linkTtlMs(deps));
  await deps.cardVault.put(pending.payId, card, expiresAt);
  const browser = areq.deviceChannel === '02';
  const challengeRequest = authenticationResponse.challengeRequest;
  const transaction: ThreeDSTransaction = {
    payId: pending.payId,
    merchantId: merchant.merchantId,
    methodStatus: areq.threeDSCompInd === 'U' ? 'UNAVAILABLE' : 'NOT_STARTED',
    redirectNonce: ids.randomToken(16),
    redirectExpiresAt: expiresAt,
    createdAt: now,
    ...existing,
    phase: ares.transStatus === 'D' ? 'DECOUPLED' : browser ? 'CHALLENGE' : 'APP_CHALLENGE',
    threeDSCompInd: areq.threeDSCompInd,
    acsTransID: ares.acsTransID,
    dsTransID: ares.dsTransID,
    messageVersion: ares.messageVersion,
    ...(browser && ares.transStatus === 'C' && ares.acsURL !== undefined && { acsURL: ares.acsURL }),
    ...(isChallengeRequest(challengeRequest) && {
      challengeWindowSize: challengeRequest.challengeWindowSize,
      creq: encodeCReq(challengeRequest),
    }),
    updatedAt: now,
  };
  const payment: Payment = { ...pending, status: 'PENDING', responseCode, updatedAt: now };
  await store.transaction(async (tx) => {
    await tx.payments.update(payment);
    await tx.threeDSTransactions.save(transaction);
    await enqueueAuthenticationNotification(deps, tx, merchant, payment, authenticationResponse);
  });
  return transaction.phase === 'CHALLENGE'
    ? { ...payment, redirectHref: deps.links.threeDSPage('challenge', payment.payId, transaction.redirectNonce) }
    : payment;
}

/**
 * Authorizes (and for AUTOMATIC capture also captures) the payment's total at the acquirer and records the
 * result. An unknown outcome (transport failure) keeps the payment PENDING (60020001): never assume success.
 * `storedCredential`: the indicator of a stored-credential payment (default: the cardholder-initiated one the
 * payment's `credentialOnFile` implies); an approved initial payment stores the card. `exemption`: the SCA
 * exemption reason the merchant asked for (Paygate threeDsPolicy.exemption), flagged to the acquirer. `alongside`:
 * more to write in the result's transaction (the Authentication Notification), so the result is one durable write.
 */
export async function authorizeAtAcquirer(
  deps: PaymentServiceDeps,
  merchant: Merchant,
  pending: Payment,
  card: CardInput,
  storedCredential: StoredCredentialIndicator | undefined = cardholderIndicator(pending),
  exemption?: string,
  alongside?: (tx: Store) => Promise<void>,
): Promise<Payment> {
  const { store, clock, ids } = deps;
  const payment = pending;
  const brand = payment.card?.brand;
  if (!brand) throw new Error(`payment ${payment.payId} has no card`);
  const xId = newHexId(ids);
  let result: AcquirerAuthorizationResult;
  try {
    result = await deps.acquirer.authorize({
      xId,
      payId: payment.payId,
      merchantId: merchant.merchantId,
      pan: card.number,
      expiryDate: card.expiryDate,
      securityCode: card.securityCode,
      brand,
      value: payment.value + payment.surcharge.value,
      currency: payment.currency,
      capture: payment.captureMethod === 'AUTOMATIC',
      threeDS: payment.threeDS && {
        transStatus: payment.threeDS.transStatus,
        eci: payment.threeDS.eci,
        authenticationValue: payment.threeDS.authenticationValue,
        dsTransID: payment.threeDS.dsTransID ?? '',
      },
      ...(storedCredential !== undefined && { storedCredential }),
      ...(payment.informational?.statementDescriptor !== undefined && {
        statementDescriptor: payment.informational.statementDescriptor,
      }),
      ...(exemption !== undefined && { exemption }),
    });
  } catch (error) {
    deps.onUnexpectedError?.(payment.payId, 'acquirer', error);
    const unknown: Payment = { ...payment, responseCode: '60020001', updatedAt: clock.now() };
    await store.transaction(async (tx) => {
      await alongside?.(tx);
      await tx.payments.update(unknown);
    });
    return unknown;
  }
  const stored =
    result.outcome === 'APPROVED'
      ? await storeCredential(deps, merchant, payment, card, storedCredential, result.schemeReferenceId)
      : payment;
  const outcome = authorizationOutcome(deps, stored, xId, result, payment.captureMethod === 'AUTOMATIC');
  return finishPayment(deps, merchant, outcome.payment, outcome.responseCode, outcome.operations, alongside);
}

/**
 * What the acquirer's answer to a payment's authorization (sent with `xId`) makes of the PENDING payment: declined,
 * its response code (Kassa's catalogue, from ISO 8583 and the Merchant Advice Code) and a FAILED AUTHORIZATION
 * operation; approved, 00000000 and an OK AUTHORIZATION, and when `captured` (a sale) an OK CAPTURE of the whole
 * total too, with the captured amounts set. Amounts are the payment's, minor units, surcharge kept apart.
 * Shared by the request (authorizeAtAcquirer) and the recovery of one whose answer was never recorded.
 */
export function authorizationOutcome(
  deps: Pick<PaymentServiceDeps, 'clock' | 'ids'>,
  payment: Payment,
  xId: string,
  result: AcquirerAuthorizationResult,
  captured: boolean,
): { payment: Payment; responseCode: string; operations: PaymentOperation[] } {
  const authorization: PaymentOperation = {
    xId,
    type: 'AUTHORIZATION',
    value: payment.value,
    surchargeValue: payment.surcharge.value,
    status: 'FAILED',
    responseCode: '60000001',
    creationDate: deps.clock.now(),
  };
  if (result.outcome === 'DECLINED') {
    const declined = responseCodeFromAcquirer(result.responseCode, result.merchantAdviceCode);
    return { payment, responseCode: declined, operations: [{ ...authorization, responseCode: declined }] };
  }
  const responseCode = responseCodeFromAcquirer(result.responseCode);
  const operations: PaymentOperation[] = [{ ...authorization, status: 'OK', responseCode }];
  if (!captured) return { payment, responseCode: '00000000', operations };
  operations.push({ ...authorization, xId: newHexId(deps.ids), type: 'CAPTURE', status: 'OK', responseCode });
  return {
    payment: { ...payment, capturedValue: payment.value, surchargeCapturedValue: payment.surcharge.value },
    responseCode: '00000000',
    operations,
  };
}

/**
 * Queues the Authentication Notification (spec §4.7) in `tx`. Only server-to-server integrations receive it (spec
 * §2.1 rule 1): a hosted payment's merchant never handled the card and learns the outcome from payment.* events and
 * getByPayId. An authenticationResponse failing its schema is a bug: reported, never sent (DESIGN.md §5).
 */
async function enqueueAuthenticationNotification(
  deps: PaymentServiceDeps,
  tx: Store,
  merchant: Merchant,
  payment: Payment,
  authenticationResponse: AuthenticationResponse,
): Promise<void> {
  if (payment.integrationType !== 'DIRECT') return;
  const check = validateAuthenticationResponse(authenticationResponse);
  if (!check.ok) {
    deps.onInvalidAuthenticationResponse?.(payment.payId, check.errors);
    return;
  }
  const now = deps.clock.now();
  await tx.outbox.enqueue({
    id: `msg_${newHexId(deps.ids)}`,
    merchantId: merchant.merchantId,
    payId: payment.payId,
    type: 'authentication',
    payload: {
      type: 'authentication',
      payId: payment.payId,
      transId: payment.transId,
      merchantId: merchant.merchantId,
      creationDate: isoTime(now),
      authenticationResponse,
    },
    targetUrl: notificationTarget(payment, merchant),
    createdAt: now,
  });
}
