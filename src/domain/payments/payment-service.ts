import { isPseudoCardNumber } from '../cards/pseudo-card-number.js';
import type { StoredCardService } from '../cards/stored-card-service.js';
import { planStoredCredential, type StoredCredentialPlan } from '../cards/stored-credential-plan.js';
import { type FieldError, KassaError, validationError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import { isCurrencyWithMinorUnits } from '../merchants/merchant-service.js';
import { checkMerchantUrl } from '../merchants/merchant-url.js';
import type { Acquirer, AcquirerAuthorizationResult, StoredCredentialIndicator } from '../ports/acquirer.js';
import type { BinTable, CardBrand } from '../ports/bin-table.js';
import type { CardVault } from '../ports/card-vault.js';
import type { Clock } from '../ports/clock.js';
import type { DirectoryServer } from '../ports/directory-server.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { Store } from '../ports/store.js';
import {
  type AuthenticationResponse,
  buildAuthenticationResponse,
  type ChallengeRequest,
} from '../threeds/authentication-response.js';
import { validateAuthenticationResponse } from '../threeds/authentication-response-validator.js';
import { decodeBrowserMessage, encodeBrowserMessage, encodeCReq, readCRes } from '../threeds/browser-messages.js';
import { checkRReq, resultsResponse, rreqError } from '../threeds/results-request.js';
import type {
  AuthenticationRequest,
  AuthenticationResponseMessage,
  ResultsRequest,
  ResultsResponse,
  ThreeDSErrorMessage,
  TransStatus,
} from '../threeds/three-ds-messages.js';
import { type AuthenticationOutcome, authenticate, threeDSResultFromARes } from '../threeds/three-ds-server.js';
import type { ThreeDSPhase, ThreeDSTransaction } from '../threeds/three-ds-transaction.js';
import { detectBrand, expiryProblem, passesLuhn, summarizeCard } from './card-checks.js';
import type { Payment, PaymentOperation } from './payment.js';
import { deviceChannelOf, payIdFromUuid, uuidFromPayId } from './payment.js';
import { enqueuePaymentEvent } from './payment-events.js';
import type { CardInput, CreatePaymentCommand } from './payment-request.js';
import { type ResponseCode, responseCodeFromAcquirer } from './response-codes.js';
import {
  redirectToken,
  THREE_DS_LINK_TTL_MS,
  THREE_DS_METHOD_TIMEOUT_MS,
  threeDSPageUrl,
  verifyRedirectToken,
} from './three-ds-links.js';

/** What the payment service needs from the outside world (ports) and settings. */
export interface PaymentServiceDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  bins: BinTable;
  directoryServer: DirectoryServer;
  acquirer: Acquirer;
  /** Kassa's public https base URL, without a trailing slash. */
  publicUrl: string;
  /** Key of card fingerprints and of the 3-D Secure redirect tokens (HKDF-derived sub-keys). */
  dataKey: string;
  /** Encrypted card data between AReq and the final 3-D Secure result (challenge, decoupled, 3DS Method redirect). */
  cardVault: CardVault;
  /**
   * Stored credentials (`credentialOnFile`): stores the card of an approved initial payment, finds the card behind
   * a pseudo card number. Without it, payments with `credentialOnFile` are served as ordinary payments.
   */
  storedCards?: StoredCardService;
  /** Lifetime of 3-D Secure links and vaulted cards, ms. Default THREE_DS_LINK_TTL_MS (30 min). */
  threeDSLinkTtlMs?: number;
  /** How long the 3DS Method page waits for the ACS's callback, ms. Default THREE_DS_METHOD_TIMEOUT_MS (10 s). */
  threeDSMethodTimeoutMs?: number;
  /** Called when an authenticationResponse fails its schema: a bug, logged and counted, never sent (DESIGN.md §5). */
  onInvalidAuthenticationResponse?: (payId: string, errors: string[]) => void;
  /** Called when a step failed in a way that is a bug or an outage (logged by the caller); the payment stays safe. */
  onUnexpectedError?: (payId: string, step: 'three-ds' | 'acquirer', error: unknown) => void;
  /**
   * Where the browser goes when Kassa's 3-D Secure pages are done; default `returnUrlOf`. The hosted payment page
   * sends a declined try back to its own page, where the cardholder may try another card.
   */
  returnUrl?: (payment: Payment) => string | undefined;
  /** Called once a payment's authorization outcome is final (committed): AUTHORIZED, OK or FAILED (metrics). */
  onPaymentFinal?: (payment: Payment) => void;
}

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

/**
 * What Kassa's 3-D Secure pages (src/hosted/threeds) show next for a payment:
 * - INVALID_LINK: unknown payment, wrong or expired token (the page answers 404 without saying which);
 * - METHOD: run the 3DS Method: POST `threeDSMethodData` to `threeDSMethodURL` in a hidden iframe, wait at most
 *   `timeoutMs` for the callback, then open `continueUrl` (without `threeDSMethodURL`: open it at once, U);
 * - CHALLENGE: POST `creq` to `acsURL` (EMVCo browser challenge, auto-submitting form);
 * - WAITING: the result is not in yet (RReq or authorization pending); `retryUrl` re-checks;
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
  | { kind: 'WAITING'; payment: Payment; retryUrl?: string }
  | { kind: 'FINISHED'; payment: Payment; returnUrl?: string };

/** Phases in which a payment waits for the cardholder's browser, so its redirect link is shown. */
const BROWSER_PHASES: readonly ThreeDSPhase[] = ['METHOD', 'CHALLENGE'];
/** Phases in which an RReq is expected. */
const RESULT_PHASES: readonly ThreeDSPhase[] = ['CHALLENGE', 'APP_CHALLENGE', 'DECOUPLED'];
const isChallengeRequest = (r: ChallengeRequest | Record<string, never>): r is ChallengeRequest =>
  r.messageType === 'CReq';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Card payments: creation and reads. Every operation runs validate → load → decide → persist → call out →
 * persist result, and persists before calling a simulator or network (so a crash leaves a PENDING payment, never
 * an unrecorded authorization).
 */
export class PaymentService {
  constructor(private readonly deps: PaymentServiceDeps) {}

  /**
   * Creates a DIRECT (server-to-server) card payment: 3-D Secure as 3DS Server, then authorization.
   * A decline is a FAILED payment, not an error.
   * @throws KassaError VALIDATION_FAILED (card, amount, urls), CARD_BRAND_NOT_SUPPORTED, TRANS_ID_IN_USE.
   */
  async createDirectPayment(merchant: Merchant, cmd: CreatePaymentCommand): Promise<Payment> {
    const { store, clock, ids, bins } = this.deps;
    if (!cmd.card) {
      throw validationError([{ field: 'paymentMethods.card', message: 'is required for DIRECT payments' }]);
    }
    const plan = await this.planStoredCredential(merchant, cmd);
    // A payment with a stored card uses the vault's card: the pseudo card number is not a PAN (it fails the Luhn
    // check on purpose), its expiry is the stored one (an expired stored card is declined by the network with 54,
    // not refused here), and a merchant-initiated payment has no browser to authenticate.
    const card = plan.kind === 'SUBSEQUENT' ? plan.card : cmd.card;
    this.checkCommand(merchant, cmd, plan);
    if (plan.kind === 'UNUSABLE') return this.createUnusableStoredCardPayment(merchant, cmd, plan);

    const bin = bins.lookup(card.number);
    const brand = bin?.brand ?? detectBrand(card.number);
    if (!brand) {
      throw new KassaError('CARD_BRAND_NOT_SUPPORTED', 'paymentMethods.card.number: only Visa and Mastercard', {
        errors: [{ field: 'paymentMethods.card.number', message: 'only Visa and Mastercard cards are accepted' }],
      });
    }

    const now = clock.now();
    const payment: Payment = {
      payId: payIdFromUuid(ids.uuid()),
      merchantId: merchant.merchantId,
      transId: cmd.transId,
      refNr: cmd.refNr,
      status: 'PENDING',
      responseCode: '60000001',
      currency: cmd.amount.currency,
      value: cmd.amount.value,
      capturedValue: 0,
      refundedValue: 0,
      surcharge: { status: 'NOT_OFFERED', reason: 'DIRECT_INTEGRATION', value: 0 },
      surchargeCapturedValue: 0,
      surchargeRefundedValue: 0,
      captureMethod: cmd.captureMethod,
      integrationType: 'DIRECT',
      channel: cmd.channel,
      language: cmd.language,
      card: {
        ...summarizeCard(card, brand, bin, this.deps.dataKey),
        ...(plan.kind === 'SUBSEQUENT' && { pseudoCardNumber: plan.stored.pseudoCardNumber }),
      },
      order: cmd.order,
      customerInfo: cmd.customerInfo,
      urls: cmd.urls,
      metadata: cmd.metadata,
      informational: cmd.informational,
      operations: [],
      creationDate: now,
      updatedAt: now,
    };
    if ((await store.payments.insert(payment)) === 'TRANS_ID_IN_USE') {
      throw new KassaError('TRANS_ID_IN_USE', `transId ${cmd.transId} belongs to a payment that has not failed`);
    }

    // Merchant-initiated: out of scope of SCA (PSD2 RTS art. 13/14, the schemes' MIT frameworks), no 3-D Secure; the
    // network needs the initial payment's schemeReferenceId instead.
    if (plan.kind === 'SUBSEQUENT' && plan.use === 'MIT')
      return this.authorize(merchant, payment, card, plan.indicator);

    if (cmd.browserAuthentication === 'REDIRECT' && deviceChannelOf(cmd.channel) === 'BROWSER') {
      return this.startBrowserAuthentication(merchant, payment, card, cmd);
    }
    return this.authenticateAndAuthorize(merchant, payment, card, cmd);
  }

  /**
   * Starts a browser authentication that runs in Kassa's own pages (DIRECT `browserAuthentication: "REDIRECT"`, and
   * the hosted flows): vaults the card (encrypted), stores the 3-D Secure state in phase METHOD and returns the
   * payment PENDING (60010003) with `redirectHref` to the 3DS Method page. The AReq is sent when the page continues
   * (continueAfterThreeDSMethod), with threeDSCompInd Y, N or U from the method's outcome (spec §2.1).
   * A card outside every 3-D Secure range is not enrolled: it is authorized at once, as in the synchronous flow.
   * `pending` must be stored already (status PENDING).
   */
  async startBrowserAuthentication(
    merchant: Merchant,
    pending: Payment,
    card: CardInput,
    cmd: Pick<CreatePaymentCommand, 'browserInfo' | 'challengePreference'>,
  ): Promise<Payment> {
    const { store, clock, ids } = this.deps;
    let threeDSMethodURL: string | undefined;
    try {
      const range = await this.deps.directoryServer.cardRange(card.number);
      if (range === undefined) {
        return this.authenticateAndAuthorize(merchant, pending, card, { ...cmd, channel: 'ECOM' });
      }
      threeDSMethodURL = range.threeDSMethodURL;
    } catch (error) {
      this.deps.onUnexpectedError?.(pending.payId, 'three-ds', error);
      return this.finish(merchant, pending, '20010004', []);
    }
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + this.linkTtlMs());
    await this.deps.cardVault.put(pending.payId, card, expiresAt);
    const transaction: ThreeDSTransaction = {
      payId: pending.payId,
      merchantId: merchant.merchantId,
      phase: 'METHOD',
      methodStatus: threeDSMethodURL === undefined ? 'UNAVAILABLE' : 'NOT_STARTED',
      ...(threeDSMethodURL !== undefined && { threeDSMethodURL }),
      authentication: {
        challengePreference: cmd.challengePreference,
        ...(cmd.browserInfo !== undefined && { browserInfo: cmd.browserInfo }),
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
    return { ...payment, redirectHref: this.pageUrl('method', transaction) };
  }

  /**
   * 3-D Secure as 3DS Server (spec §1.5, DESIGN.md §6), then the Authentication Notification, then authorization.
   * The DIRECT synchronous browser flow has no 3DS Method step (no Kassa page runs in the cardholder's browser
   * before the AReq), so threeDSCompInd is U when the card range has no method URL and N otherwise; a flow that ran
   * the 3DS Method in Kassa's page passes `threeDSCompInd`.
   * C and D leave the payment PENDING (60010001 / 60010002) with the card vaulted until the RReq
   * (handleResultsRequest); a browser C gets `redirectHref` to Kassa's challenge page.
   * `pending` must be stored already (status PENDING). Used by DIRECT creation and by the hosted flows.
   */
  async authenticateAndAuthorize(
    merchant: Merchant,
    pending: Payment,
    card: CardInput,
    cmd: Pick<CreatePaymentCommand, 'channel' | 'browserInfo' | 'sdkInfo' | 'challengePreference'>,
    threeDSCompInd?: 'Y' | 'N' | 'U',
  ): Promise<Payment> {
    const { store, clock } = this.deps;
    let payment = pending;
    let outcome: AuthenticationOutcome;
    try {
      const range = await this.deps.directoryServer.cardRange(card.number);
      outcome = await authenticate(this.deps.directoryServer, clock, {
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
        credentialOnFile: payment.informational?.credentialOnFile,
        threeDSCompInd: !range?.threeDSMethodURL ? 'U' : (threeDSCompInd ?? 'N'),
        notificationURL: threeDSPageUrl(this.deps.publicUrl, 'challengeNotification', payment.payId),
        threeDSRequestorURL: this.deps.publicUrl,
        threeDSServerURL: `${this.deps.publicUrl}/3ds/results`,
      });
    } catch (error) {
      this.deps.onUnexpectedError?.(payment.payId, 'three-ds', error);
      return this.finish(merchant, payment, '20010004', []);
    }

    if (outcome.kind === 'ERROR') return this.finish(merchant, payment, '20010004', []);
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
        return this.awaitResult(merchant, payment, card, areq, ares, authenticationResponse, decision.responseCode);
      }
      await store.transaction(async (tx) => {
        await tx.payments.update(payment);
        await this.enqueueAuthenticationNotification(tx, merchant, payment, authenticationResponse);
      });
      if (decision.next === 'FAIL') return this.finish(merchant, payment, decision.responseCode, []);
    }
    return this.authorize(merchant, payment, card);
  }

  /**
   * C or D: vaults the card (encrypted) for the authorization after the RReq, stores the 3-D Secure state, and in
   * one transaction moves the payment to 60010001/60010002 and queues the Authentication Notification.
   */
  private async awaitResult(
    merchant: Merchant,
    pending: Payment,
    card: CardInput,
    areq: AuthenticationRequest,
    ares: AuthenticationResponseMessage,
    authenticationResponse: AuthenticationResponse,
    responseCode: ResponseCode,
  ): Promise<Payment> {
    const { store, clock, ids } = this.deps;
    const now = clock.now();
    const existing = await store.threeDSTransactions.find(pending.payId);
    const expiresAt = existing?.redirectExpiresAt ?? new Date(now.getTime() + this.linkTtlMs());
    await this.deps.cardVault.put(pending.payId, card, expiresAt);
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
      await this.enqueueAuthenticationNotification(tx, merchant, payment, authenticationResponse);
    });
    return transaction.phase === 'CHALLENGE'
      ? { ...payment, redirectHref: this.pageUrl('challenge', transaction) }
      : payment;
  }

  /**
   * The 3-D Secure results endpoint (EMVCo threeDSServerURL): takes the final result of a challenge or decoupled
   * authentication from the RReq — never from the browser's CRes — stores it on the payment, then authorizes (Y, A,
   * U) or fails the payment (N → 20010001, or 20010003 for reason 26 "not performed": a cancelled challenge;
   * R → 20010002), queuing the payment.* event in the transaction of the state change, and deletes the vaulted card.
   * A repeated RReq for a transaction already finished is acknowledged again without acting twice.
   * @returns the RRes (resultsStatus 01), or an EMVCo Erro: 301 for an unknown transaction, 201/203 for an invalid
   * RReq. Never throws for a bad RReq; throws only when storage fails.
   */
  async handleResultsRequest(rreq: ResultsRequest): Promise<ResultsResponse | ThreeDSErrorMessage> {
    const { store, clock } = this.deps;
    const serverTransID = (rreq as unknown as Record<string, unknown>).threeDSServerTransID;
    if (typeof serverTransID !== 'string' || !UUID.test(serverTransID)) return rreqError(rreq, 'UNKNOWN_TRANSACTION');
    const payId = payIdFromUuid(serverTransID);
    const t = await store.threeDSTransactions.find(payId);
    if (t === undefined || t.acsTransID === undefined || t.messageVersion === undefined) {
      return rreqError(rreq, 'UNKNOWN_TRANSACTION');
    }
    const problems = checkRReq(rreq, {
      threeDSServerTransID: uuidFromPayId(payId),
      acsTransID: t.acsTransID,
      dsTransID: t.dsTransID,
      messageVersion: t.messageVersion,
    });
    if (problems.length > 0) return rreqError(rreq, problems);
    // A repeated RReq (the DS retries until it gets an RRes) is acknowledged again without acting twice.
    if (t.phase === 'DONE') return resultsResponse(rreq);
    if (!RESULT_PHASES.includes(t.phase)) return rreqError(rreq, 'UNKNOWN_TRANSACTION');
    if (!(await store.threeDSTransactions.claimPhase(payId, t.phase, 'DONE', clock.now())))
      return resultsResponse(rreq);
    const [merchant, stored] = await Promise.all([
      store.merchants.find(t.merchantId),
      store.payments.findByPayId(t.merchantId, payId),
    ]);
    if (merchant === undefined || stored === undefined || stored.status !== 'PENDING') {
      await this.deps.cardVault.delete(payId);
      return resultsResponse(rreq);
    }
    const previous = stored.threeDS;
    const threeDS = {
      threeDSServerTransID: uuidFromPayId(payId),
      messageVersion: t.messageVersion,
      transStatus: rreq.transStatus,
      acsTransID: rreq.acsTransID,
      dsTransID: rreq.dsTransID,
      liabilityShift: rreq.transStatus === 'Y' || rreq.transStatus === 'A',
      ...(rreq.transStatusReason !== undefined && { transStatusReason: rreq.transStatusReason }),
      ...(rreq.eci !== undefined && { eci: rreq.eci }),
      ...(rreq.authenticationValue !== undefined && { authenticationValue: rreq.authenticationValue }),
    };
    const payment: Payment = {
      ...stored,
      threeDS: previous === undefined ? threeDS : { ...threeDS, messageVersion: previous.messageVersion },
      responseCode: '60000001',
      updatedAt: clock.now(),
    };
    const decision = decideAfterAuthentication(rreq.transStatus, rreq.transStatusReason);
    if (decision.next === 'FAIL') {
      await this.finish(merchant, payment, decision.responseCode, []);
      return resultsResponse(rreq);
    }
    const card = await this.deps.cardVault.take(payId, clock.now());
    if (card === undefined) {
      // The vaulted card expired or the data key changed: the payment cannot be authorized any more.
      await this.finish(merchant, payment, '20010006', []);
      return resultsResponse(rreq);
    }
    await store.payments.update(payment);
    await this.authorize(merchant, payment, card);
    return resultsResponse(rreq);
  }

  /**
   * The 3DS Method page of a payment (GET /3ds/method/:payId?token=): marks the method as started and returns what
   * the page needs (METHOD), or the step the payment has moved on to. `threeDSMethodData` is base64url of
   * `{threeDSServerTransID, threeDSMethodNotificationURL}` (EMVCo).
   */
  async threeDSMethodStep(payId: string, token: unknown): Promise<ThreeDSBrowserStep> {
    const found = await this.openLink(payId, token);
    if (found === undefined) return { kind: 'INVALID_LINK' };
    const { transaction: t, payment } = found;
    if (t.phase !== 'METHOD') return this.currentStep(t, payment);
    const continueUrl = this.pageUrl('continue', t);
    const timeoutMs = this.deps.threeDSMethodTimeoutMs ?? THREE_DS_METHOD_TIMEOUT_MS;
    if (t.threeDSMethodURL === undefined) return { kind: 'METHOD', payment, continueUrl, timeoutMs };
    if (t.methodStatus === 'NOT_STARTED') {
      const now = this.deps.clock.now();
      await this.deps.store.threeDSTransactions.save({
        ...t,
        methodStatus: 'STARTED',
        methodStartedAt: now,
        updatedAt: now,
      });
    }
    const threeDSMethodData = encodeBrowserMessage({
      threeDSServerTransID: uuidFromPayId(payId),
      threeDSMethodNotificationURL: threeDSPageUrl(this.deps.publicUrl, 'methodNotification', payId),
    });
    return { kind: 'METHOD', payment, threeDSMethodURL: t.threeDSMethodURL, threeDSMethodData, continueUrl, timeoutMs };
  }

  /**
   * The ACS's 3DS Method callback (POST /3ds/method-notification/:payId with `threeDSMethodData`): records that the
   * method completed, so the AReq carries threeDSCompInd Y. The data must name this payment's threeDSServerTransID.
   * @returns true when recorded (false: unknown payment, mismatching data, or the AReq has been sent already).
   */
  async recordThreeDSMethodCompletion(payId: string, threeDSMethodData: unknown): Promise<boolean> {
    if (!/^[0-9a-f]{32}$/.test(payId)) return false;
    const data = decodeBrowserMessage(threeDSMethodData);
    if (data?.threeDSServerTransID !== uuidFromPayId(payId)) return false;
    return this.deps.store.threeDSTransactions.markMethodCompleted(payId, this.deps.clock.now());
  }

  /**
   * Continues after the 3DS Method page (GET /3ds/continue/:payId?token=): sends the AReq with threeDSCompInd Y (the
   * ACS called back), N (it did not, within the page's wait) or U (no method URL), then returns CHALLENGE (browser
   * C), WAITING or FINISHED. Only one request acts (phase compare-and-set); others get the current step.
   */
  async continueAfterThreeDSMethod(payId: string, token: unknown): Promise<ThreeDSBrowserStep> {
    const found = await this.openLink(payId, token);
    if (found === undefined) return { kind: 'INVALID_LINK' };
    const { transaction: t, payment } = found;
    const { store, clock } = this.deps;
    if (
      t.phase !== 'METHOD' ||
      !(await store.threeDSTransactions.claimPhase(payId, 'METHOD', 'AUTHENTICATING', clock.now()))
    ) {
      return this.currentStep((await store.threeDSTransactions.find(payId)) ?? t, payment);
    }
    const threeDSCompInd = t.methodStatus === 'UNAVAILABLE' ? 'U' : t.methodStatus === 'COMPLETED' ? 'Y' : 'N';
    const [merchant, card] = await Promise.all([
      store.merchants.find(t.merchantId),
      this.deps.cardVault.take(payId, clock.now()),
    ]);
    if (merchant === undefined) return { kind: 'INVALID_LINK' };
    if (card === undefined) {
      return { kind: 'FINISHED', payment: await this.finish(merchant, payment, '20010006', []) };
    }
    const next = await this.authenticateAndAuthorize(
      merchant,
      payment,
      card,
      {
        channel: 'ECOM',
        browserInfo: t.authentication?.browserInfo,
        challengePreference: t.authentication?.challengePreference ?? 'NO_PREFERENCE',
      },
      threeDSCompInd,
    );
    return this.currentStep((await store.threeDSTransactions.find(payId)) ?? t, next);
  }

  /**
   * The challenge page of a payment (GET /3ds/challenge/:payId?token=, the `_links.redirect.href` of a browser C):
   * CHALLENGE with the acsURL and `creq` to POST, or the step the payment has moved on to.
   */
  async challengeStep(payId: string, token: unknown): Promise<ThreeDSBrowserStep> {
    const found = await this.openLink(payId, token);
    if (found === undefined) return { kind: 'INVALID_LINK' };
    return this.currentStep(found.transaction, found.payment);
  }

  /**
   * The browser's arrival at the notificationURL after a challenge (POST /3ds/challenge-notification/:payId with
   * `cres`). The CRes must name this payment's threeDSServerTransID and acsTransID (known only to Kassa, the ACS and
   * that browser); its transStatus is ignored: the result is the RReq's. Returns FINISHED (final payment) or WAITING.
   */
  async challengeNotification(payId: string, cres: unknown): Promise<ThreeDSBrowserStep> {
    if (!/^[0-9a-f]{32}$/.test(payId)) return { kind: 'INVALID_LINK' };
    const t = await this.deps.store.threeDSTransactions.find(payId);
    if (t?.acsTransID === undefined) return { kind: 'INVALID_LINK' };
    if (readCRes(cres, { threeDSServerTransID: uuidFromPayId(payId), acsTransID: t.acsTransID }) === undefined) {
      return { kind: 'INVALID_LINK' };
    }
    const payment = await this.deps.store.payments.findByPayId(t.merchantId, payId);
    if (payment === undefined) return { kind: 'INVALID_LINK' };
    if (payment.status === 'PENDING') return { kind: 'WAITING', payment, retryUrl: this.pageUrl('challenge', t) };
    return { kind: 'FINISHED', payment, returnUrl: (this.deps.returnUrl ?? returnUrlOf)(payment) };
  }

  /**
   * Ends payments whose 3-D Secure waited longer than their link's lifetime (cardholder gone, no RReq): FAILED
   * 20010006 with payment.failed, card deleted; then deletes every expired vaulted card. Safe to run on every node.
   * @returns how many payments it ended.
   */
  async expireAbandonedAuthentications(limit = 100): Promise<number> {
    const { store, clock } = this.deps;
    const now = clock.now();
    let ended = 0;
    for (const t of await store.threeDSTransactions.findExpired(now, limit)) {
      if (!(await store.threeDSTransactions.claimPhase(t.payId, t.phase, 'DONE', now))) continue;
      const [merchant, payment] = await Promise.all([
        store.merchants.find(t.merchantId),
        store.payments.findByPayId(t.merchantId, t.payId),
      ]);
      if (merchant !== undefined && payment?.status === 'PENDING') {
        await this.finish(merchant, payment, '20010006', []);
        ended++;
      }
      await this.deps.cardVault.delete(t.payId);
    }
    await this.deps.cardVault.deleteExpired(now);
    return ended;
  }

  /** The stored state behind a link, when the token is right and the link has not expired. */
  private async openLink(
    payId: string,
    token: unknown,
  ): Promise<{ transaction: ThreeDSTransaction; payment: Payment } | undefined> {
    if (!/^[0-9a-f]{32}$/.test(payId)) return undefined;
    const t = await this.deps.store.threeDSTransactions.find(payId);
    if (t === undefined || !verifyRedirectToken(this.deps.dataKey, payId, t.redirectNonce, token)) return undefined;
    if (t.redirectExpiresAt.getTime() <= this.deps.clock.now().getTime()) return undefined;
    const payment = await this.deps.store.payments.findByPayId(t.merchantId, payId);
    return payment === undefined ? undefined : { transaction: t, payment };
  }

  /** The browser step matching a payment's stored state. */
  private currentStep(t: ThreeDSTransaction, payment: Payment): ThreeDSBrowserStep {
    if (payment.status !== 'PENDING') {
      return { kind: 'FINISHED', payment, returnUrl: (this.deps.returnUrl ?? returnUrlOf)(payment) };
    }
    if (t.phase === 'CHALLENGE' && t.acsURL !== undefined && t.creq !== undefined) {
      return { kind: 'CHALLENGE', payment, acsURL: t.acsURL, creq: t.creq };
    }
    if (t.phase === 'METHOD') {
      return {
        kind: 'METHOD',
        payment,
        continueUrl: this.pageUrl('continue', t),
        timeoutMs: this.deps.threeDSMethodTimeoutMs ?? THREE_DS_METHOD_TIMEOUT_MS,
      };
    }
    return { kind: 'WAITING', payment, retryUrl: this.pageUrl('challenge', t) };
  }

  /** A payment as the API shows it: with `redirectHref` while it waits for the cardholder's browser. */
  private async withRedirect(payment: Payment): Promise<Payment> {
    if (payment.status !== 'PENDING' || deviceChannelOf(payment.channel) !== 'BROWSER') return payment;
    const t = await this.deps.store.threeDSTransactions.find(payment.payId);
    if (t === undefined || !BROWSER_PHASES.includes(t.phase)) return payment;
    if (t.redirectExpiresAt.getTime() <= this.deps.clock.now().getTime()) return payment;
    return { ...payment, redirectHref: this.pageUrl(t.phase === 'METHOD' ? 'method' : 'challenge', t) };
  }

  private pageUrl(page: 'method' | 'continue' | 'challenge', t: ThreeDSTransaction): string {
    return threeDSPageUrl(
      this.deps.publicUrl,
      page,
      t.payId,
      redirectToken(this.deps.dataKey, t.payId, t.redirectNonce),
    );
  }

  private linkTtlMs(): number {
    return this.deps.threeDSLinkTtlMs ?? THREE_DS_LINK_TTL_MS;
  }

  /**
   * Authorizes (and for AUTOMATIC capture also captures) the payment's total at the acquirer and records the
   * result. An unknown outcome (transport failure) keeps the payment PENDING: never assume success.
   */
  private async authorize(
    merchant: Merchant,
    pending: Payment,
    card: CardInput,
    storedCredential: StoredCredentialIndicator | undefined = cardholderIndicator(pending),
  ): Promise<Payment> {
    const { store, clock, ids } = this.deps;
    let payment = pending;
    const brand = payment.card?.brand;
    if (!brand) throw new Error(`payment ${payment.payId} has no card`);
    const authorization: PaymentOperation = {
      xId: payIdFromUuid(ids.uuid()),
      type: 'AUTHORIZATION',
      value: payment.value,
      surchargeValue: payment.surcharge.value,
      status: 'FAILED',
      responseCode: '60000001',
      creationDate: clock.now(),
    };
    let result: AcquirerAuthorizationResult;
    try {
      result = await this.deps.acquirer.authorize({
        xId: authorization.xId,
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
      });
    } catch (error) {
      this.deps.onUnexpectedError?.(payment.payId, 'acquirer', error);
      payment = { ...payment, responseCode: '60020001', updatedAt: clock.now() };
      await store.payments.update(payment);
      return payment;
    }
    if (result.outcome === 'DECLINED') {
      const declined = responseCodeFromAcquirer(result.responseCode, result.merchantAdviceCode);
      return this.finish(merchant, payment, declined, [{ ...authorization, responseCode: declined }]);
    }
    const responseCode = responseCodeFromAcquirer(result.responseCode);
    payment = await this.storeCredential(merchant, payment, card, storedCredential, result.schemeReferenceId);
    const ops: PaymentOperation[] = [{ ...authorization, status: 'OK', responseCode }];
    if (payment.captureMethod === 'AUTOMATIC') {
      ops.push({ ...authorization, xId: payIdFromUuid(ids.uuid()), type: 'CAPTURE', status: 'OK', responseCode });
      payment = { ...payment, capturedValue: payment.value, surchargeCapturedValue: payment.surcharge.value };
    }
    return this.finish(merchant, payment, '00000000', ops);
  }

  /**
   * After an approval: records the network's schemeReferenceId on the payment and, for an initial
   * `credentialOnFile` payment, stores the card in the vault and records its pseudo card number. A failure to store
   * leaves the (approved) payment without a pseudo card number and is reported as unexpected; it never turns the
   * approval into a failure (the money moved).
   */
  private async storeCredential(
    merchant: Merchant,
    payment: Payment,
    card: CardInput,
    indicator: StoredCredentialIndicator | undefined,
    schemeReferenceId: string | undefined,
  ): Promise<Payment> {
    if (payment.card === undefined) return payment;
    let summary = { ...payment.card, ...(schemeReferenceId !== undefined && { schemeReferenceId }) };
    const cof = payment.informational?.credentialOnFile;
    if (indicator?.sequence === 'INITIAL' && cof !== undefined && this.deps.storedCards !== undefined) {
      try {
        const stored = await this.deps.storedCards.store({
          merchantId: merchant.merchantId,
          card: { number: card.number, expiryDate: card.expiryDate, cardholderName: card.cardholderName },
          brand: payment.card.brand,
          bin: payment.card.bin,
          credentialOnFile: cof,
          schemeReferenceId,
          initialPayId: payment.payId,
        });
        summary = { ...summary, pseudoCardNumber: stored.pseudoCardNumber };
      } catch (error) {
        this.deps.onUnexpectedError?.(payment.payId, 'acquirer', error);
      }
    }
    return { ...payment, card: summary };
  }

  /** The stored-credential plan of a DIRECT create request (domain/cards/stored-credential-plan.ts). */
  private async planStoredCredential(merchant: Merchant, cmd: CreatePaymentCommand): Promise<StoredCredentialPlan> {
    const storedCards = this.deps.storedCards;
    const cof = cmd.informational?.credentialOnFile;
    if (
      storedCards === undefined ||
      (cof === undefined && (cmd.card === undefined || !isPseudoCardNumber(cmd.card.number)))
    ) {
      return { kind: 'NONE' };
    }
    const result = await planStoredCredential(
      {
        merchantId: merchant.merchantId,
        integrationType: cmd.integrationType,
        credentialOnFile: cof,
        card: cmd.card,
        hasDeviceData: cmd.browserInfo !== undefined || cmd.sdkInfo !== undefined,
      },
      (merchantId, pseudo) => storedCards.lookup(merchantId, pseudo),
    );
    if (!result.ok) throw validationError(result.errors);
    return result.plan;
  }

  /**
   * A payment with a pseudo card number this merchant cannot use (unknown, another merchant's, deleted): created
   * FAILED with 20050001 or 20050002 and its payment.failed event, without calling the acquirer.
   */
  private async createUnusableStoredCardPayment(
    merchant: Merchant,
    cmd: CreatePaymentCommand,
    plan: Extract<StoredCredentialPlan, { kind: 'UNUSABLE' }>,
  ): Promise<Payment> {
    const now = this.deps.clock.now();
    const stored = plan.stored;
    const payment: Payment = {
      payId: payIdFromUuid(this.deps.ids.uuid()),
      merchantId: merchant.merchantId,
      transId: cmd.transId,
      refNr: cmd.refNr,
      status: 'PENDING',
      responseCode: '60000001',
      currency: cmd.amount.currency,
      value: cmd.amount.value,
      capturedValue: 0,
      refundedValue: 0,
      surcharge: { status: 'NOT_OFFERED', reason: 'DIRECT_INTEGRATION', value: 0 },
      surchargeCapturedValue: 0,
      surchargeRefundedValue: 0,
      captureMethod: cmd.captureMethod,
      integrationType: 'DIRECT',
      channel: cmd.channel,
      language: cmd.language,
      // A deleted card is still described (brand, last digits); an unknown number describes nothing.
      ...(stored && {
        card: {
          brand: stored.brand as CardBrand,
          bin: stored.bin,
          last4: stored.last4,
          expiryDate: stored.expiryDate,
          fingerprint: stored.fingerprint,
          pseudoCardNumber: stored.pseudoCardNumber,
        },
      }),
      order: cmd.order,
      customerInfo: cmd.customerInfo,
      urls: cmd.urls,
      metadata: cmd.metadata,
      informational: cmd.informational,
      operations: [],
      creationDate: now,
      updatedAt: now,
    };
    if ((await this.deps.store.payments.insert(payment)) === 'TRANS_ID_IN_USE') {
      throw new KassaError('TRANS_ID_IN_USE', `transId ${cmd.transId} belongs to a payment that has not failed`);
    }
    return this.finish(merchant, payment, plan.responseCode, []);
  }

  /** @throws KassaError PAYMENT_NOT_FOUND for a missing payment and for another merchant's payment alike. */
  async getByPayId(merchantId: string, payId: string): Promise<Payment> {
    const p = /^[0-9a-f]{32}$/.test(payId) ? await this.deps.store.payments.findByPayId(merchantId, payId) : undefined;
    if (!p) throw new KassaError('PAYMENT_NOT_FOUND', `no payment ${payId}`);
    return this.withRedirect(p);
  }

  /** The latest payment with this transId (DESIGN.md §4). @throws KassaError PAYMENT_NOT_FOUND. */
  async getByTransId(merchantId: string, transId: string): Promise<Payment> {
    const p = await this.deps.store.payments.findLatestByTransId(merchantId, transId);
    if (!p) throw new KassaError('PAYMENT_NOT_FOUND', `no payment with transId ${transId}`);
    return this.withRedirect(p);
  }

  /** Final state of a creation: AUTHORIZED/OK on success, FAILED otherwise, with its payment.* event. */
  private async finish(
    merchant: Merchant,
    payment: Payment,
    responseCode: string,
    operations: PaymentOperation[],
  ): Promise<Payment> {
    const ok = responseCode === '00000000';
    const status = !ok ? 'FAILED' : payment.captureMethod === 'AUTOMATIC' ? 'OK' : 'AUTHORIZED';
    const final: Payment = {
      ...payment,
      status,
      responseCode,
      operations: [...payment.operations, ...operations],
      updatedAt: this.deps.clock.now(),
    };
    const { redirectHref: _transient, ...stored } = final;
    await this.deps.store.transaction(async (tx) => {
      await tx.payments.update(stored);
      const t = await tx.threeDSTransactions.find(stored.payId);
      if (t !== undefined && t.phase !== 'DONE') {
        await tx.threeDSTransactions.claimPhase(t.payId, t.phase, 'DONE', stored.updatedAt);
      }
      await enqueuePaymentEvent(tx, this.deps, merchant, stored, ok ? 'payment.authorized' : 'payment.failed');
    });
    // The vaulted card is no longer needed once the payment is final (authorized or failed).
    await this.deps.cardVault.delete(stored.payId);
    this.deps.onPaymentFinal?.(stored);
    return stored;
  }

  private async enqueueAuthenticationNotification(
    tx: Store,
    merchant: Merchant,
    payment: Payment,
    authenticationResponse: AuthenticationResponse,
  ): Promise<void> {
    // Only server-to-server integrations receive it (spec §2.1 rule 1, §4.7): a hosted payment's merchant never
    // handled the card and learns the outcome from payment.* events and getByPayId.
    if (payment.integrationType !== 'DIRECT') return;
    const check = validateAuthenticationResponse(authenticationResponse);
    if (!check.ok) {
      this.deps.onInvalidAuthenticationResponse?.(payment.payId, check.errors);
      return;
    }
    const now = this.deps.clock.now();
    await tx.outbox.enqueue({
      id: `msg_${payIdFromUuid(this.deps.ids.uuid())}`,
      merchantId: merchant.merchantId,
      payId: payment.payId,
      type: 'authentication',
      payload: {
        type: 'authentication',
        payId: payment.payId,
        transId: payment.transId,
        merchantId: merchant.merchantId,
        creationDate: now.toISOString(),
        authenticationResponse,
      },
      targetUrl: payment.urls?.webhook ?? merchant.webhookUrl,
      createdAt: now,
    });
  }

  /** Rules beyond the request schema: currency, card number, expiry, URLs (DESIGN.md §4). */
  private checkCommand(merchant: Merchant, cmd: CreatePaymentCommand, plan?: StoredCredentialPlan): void {
    const errors: FieldError[] = [];
    if (!isCurrencyWithMinorUnits(cmd.amount.currency)) {
      errors.push({ field: 'amount.currency', message: 'must be an ISO 4217 currency code with minor units' });
    }
    const withStoredCard = plan?.kind === 'SUBSEQUENT' || plan?.kind === 'UNUSABLE';
    const card = withStoredCard ? undefined : cmd.card;
    if (card) {
      if (!passesLuhn(card.number)) {
        errors.push({ field: 'paymentMethods.card.number', message: 'is not a valid card number (Luhn check failed)' });
      }
      const expiry = expiryProblem(card.expiryDate, this.deps.clock.now());
      if (expiry === 'INVALID') {
        errors.push({ field: 'paymentMethods.card.expiryDate', message: 'must be YYYYMM with a month 01–12' });
      } else if (expiry === 'EXPIRED') {
        errors.push({ field: 'paymentMethods.card.expiryDate', message: 'the card has expired' });
      }
    }
    if (cmd.browserAuthentication === 'REDIRECT' && deviceChannelOf(cmd.channel) !== 'BROWSER') {
      errors.push({
        field: 'paymentMethods.card.threeDsPolicy.browserAuthentication',
        message: 'REDIRECT applies to browser channels (ECOM, PAYBYLINK, POS) only',
      });
    }
    if (cmd.channel === 'APP' && !cmd.sdkInfo) {
      errors.push({ field: 'paymentMethods.card.threeDsPolicy.sdkInfo', message: 'is required when channel is APP' });
    }
    const merchantInitiated = (plan?.kind === 'SUBSEQUENT' && plan.use === 'MIT') || plan?.kind === 'UNUSABLE';
    if (
      deviceChannelOf(cmd.channel) === 'BROWSER' &&
      cmd.integrationType === 'DIRECT' &&
      !cmd.browserInfo &&
      !merchantInitiated
    ) {
      errors.push({ field: 'browserInfo', message: 'is required for a DIRECT browser payment (3-D Secure needs it)' });
    }
    for (const [name, url] of Object.entries(cmd.urls ?? {})) {
      const problem = checkMerchantUrl(url, merchant.sandbox);
      if (problem) errors.push({ field: `urls.${name}`, message: problem });
    }
    if (errors.length > 0) throw validationError(errors);
  }
}

/**
 * The stored-credential indicator of a cardholder-initiated payment with `credentialOnFile` (the initial payment,
 * or a one-click payment with a stored card), read from the payment itself so that it survives 3-D Secure steps.
 * Merchant-initiated payments pass theirs explicitly (with the initial schemeReferenceId).
 */
function cardholderIndicator(payment: Payment): StoredCredentialIndicator | undefined {
  const cof = payment.informational?.credentialOnFile;
  if (cof === undefined) return undefined;
  return { type: cof.type, initiator: 'CARDHOLDER', sequence: cof.initialPayment === true ? 'INITIAL' : 'SUBSEQUENT' };
}

/** Whether the cardholder ended the payment: cancelled the 3-D Secure challenge (20010003) or the hosted page (20040002). */
export function isCancelledByCardholder(payment: Payment): boolean {
  return payment.responseCode === '20010003' || payment.responseCode === '20040002';
}

/**
 * A declined (not cancelled) try inside a hosted payment page session: while the session is open, the cardholder may
 * try another card under the same transId (DESIGN.md §4).
 */
export function mayRetryInSession(payment: Payment): boolean {
  return payment.sessionId !== undefined && payment.status === 'FAILED' && !isCancelledByCardholder(payment);
}

/**
 * Where the cardholder's browser goes when a payment's 3-D Secure pages are done (DESIGN.md §4): urls.cancel after
 * a challenge (20010003) or hosted payment (20040002) the cardholder cancelled, when the merchant gave one, else
 * urls.return; `PayId=<payId>` appended. Undefined when the merchant gave neither (the page then shows the outcome itself).
 */
export function returnUrlOf(payment: Payment): string | undefined {
  const target = isCancelledByCardholder(payment)
    ? (payment.urls?.cancel ?? payment.urls?.return)
    : payment.urls?.return;
  if (target === undefined) return undefined;
  const url = new URL(target);
  url.searchParams.set('PayId', payment.payId);
  return url.toString();
}
