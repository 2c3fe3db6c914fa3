import { type FieldError, KassaError, validationError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import { isCurrencyWithMinorUnits } from '../merchants/merchant-service.js';
import { isNonPublicHostLiteral } from '../notifications/address-policy.js';
import type { Acquirer, AcquirerAuthorizationResult } from '../ports/acquirer.js';
import type { BinTable } from '../ports/bin-table.js';
import type { Clock } from '../ports/clock.js';
import type { DirectoryServer } from '../ports/directory-server.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { Store } from '../ports/store.js';
import { type AuthenticationResponse, buildAuthenticationResponse } from '../threeds/authentication-response.js';
import { validateAuthenticationResponse } from '../threeds/authentication-response-validator.js';
import type { TransStatus } from '../threeds/three-ds-messages.js';
import { type AuthenticationOutcome, authenticate, threeDSResultFromARes } from '../threeds/three-ds-server.js';
import { cardFingerprint, detectBrand, isExpired, passesLuhn } from './card-checks.js';
import type { Payment, PaymentOperation } from './payment.js';
import { payIdFromUuid, uuidFromPayId } from './payment.js';
import { enqueuePaymentEvent } from './payment-events.js';
import type { CardInput, CreatePaymentCommand } from './payment-request.js';
import { type ResponseCode, responseCodeFromAcquirer } from './response-codes.js';

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
  /** Key of card fingerprints. */
  dataKey: string;
  /** Called when an authenticationResponse fails its schema: a bug, logged and counted, never sent (DESIGN.md §5). */
  onInvalidAuthenticationResponse?: (payId: string, errors: string[]) => void;
  /** Called when a step failed in a way that is a bug or an outage (logged by the caller); the payment stays safe. */
  onUnexpectedError?: (payId: string, step: 'three-ds' | 'acquirer', error: unknown) => void;
}

/** What 3-D Secure's transStatus means for the payment (DESIGN.md §6). */
type AfterAuthentication = { next: 'AUTHORIZE' } | { next: 'FAIL'; responseCode: ResponseCode };

/** Y/A → authorize with liability shift; U → authorize without; I → authorize; N/R → fail (spec §3, DESIGN.md §6). */
export function decideAfterAuthentication(transStatus: TransStatus): AfterAuthentication {
  switch (transStatus) {
    case 'Y':
    case 'A':
    case 'I':
    case 'U':
      return { next: 'AUTHORIZE' };
    case 'N':
      return { next: 'FAIL', responseCode: '20010001' };
    case 'R':
      return { next: 'FAIL', responseCode: '20010002' };
    case 'C':
    case 'D':
      // The challenge and decoupled flows arrive with the 3-D Secure issue; until then they end clearly, not in limbo.
      return { next: 'FAIL', responseCode: '20010005' };
  }
}

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
    const card = cmd.card;
    if (!card) throw validationError([{ field: 'paymentMethods.card', message: 'is required for DIRECT payments' }]);
    this.checkCommand(merchant, cmd);

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
        brand,
        bin: bin?.bin.length === 6 ? card.number.slice(0, 6) : card.number.slice(0, 8),
        last4: card.number.slice(-4),
        expiryDate: card.expiryDate,
        product: bin?.product,
        funding: bin?.funding,
        issuerCountry: bin?.issuerCountry,
        cardholderName: card.cardholderName,
        fingerprint: cardFingerprint(card.number, this.deps.dataKey),
      },
      order: cmd.order,
      customerInfo: cmd.customerInfo,
      urls: cmd.urls,
      metadata: cmd.metadata,
      operations: [],
      creationDate: now,
      updatedAt: now,
    };
    if ((await store.payments.insert(payment)) === 'TRANS_ID_IN_USE') {
      throw new KassaError('TRANS_ID_IN_USE', `transId ${cmd.transId} belongs to a payment that has not failed`);
    }

    return this.authenticateAndAuthorize(merchant, payment, card, cmd);
  }

  /**
   * 3-D Secure as 3DS Server (spec §1.5, DESIGN.md §6), then the Authentication Notification, then authorization.
   * The DIRECT browser flow has no 3DS Method step (no Kassa page runs in the cardholder's browser), so
   * threeDSCompInd is U when the card range has no method URL and N otherwise; a hosted flow that ran the 3DS Method
   * in its own page passes `threeDSCompInd`.
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
        channel: cmd.channel,
        browserInfo: cmd.browserInfo,
        sdkInfo: cmd.sdkInfo,
        challengePreference: cmd.challengePreference,
        threeDSCompInd: !range?.threeDSMethodURL ? 'U' : (threeDSCompInd ?? 'N'),
        notificationURL: `${this.deps.publicUrl}/3ds/challenge-notification/${payment.payId}`,
        threeDSRequestorURL: this.deps.publicUrl,
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
      const decision = decideAfterAuthentication(ares.transStatus);
      await store.transaction(async (tx) => {
        await tx.payments.update(payment);
        await this.enqueueAuthenticationNotification(tx, merchant, payment, authenticationResponse);
      });
      if (decision.next === 'FAIL') return this.finish(merchant, payment, decision.responseCode, []);
    }
    return this.authorize(merchant, payment, card);
  }

  /**
   * Authorizes (and for AUTOMATIC capture also captures) the payment's total at the acquirer and records the
   * result. An unknown outcome (transport failure) keeps the payment PENDING: never assume success.
   */
  private async authorize(merchant: Merchant, pending: Payment, card: CardInput): Promise<Payment> {
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
      });
    } catch (error) {
      this.deps.onUnexpectedError?.(payment.payId, 'acquirer', error);
      payment = { ...payment, responseCode: '60020001', updatedAt: clock.now() };
      await store.payments.update(payment);
      return payment;
    }
    const responseCode = responseCodeFromAcquirer(result.responseCode);
    if (result.outcome === 'DECLINED') {
      return this.finish(merchant, payment, responseCode, [{ ...authorization, responseCode }]);
    }
    const ops: PaymentOperation[] = [{ ...authorization, status: 'OK', responseCode }];
    if (payment.captureMethod === 'AUTOMATIC') {
      ops.push({ ...authorization, xId: payIdFromUuid(ids.uuid()), type: 'CAPTURE', status: 'OK', responseCode });
      payment = { ...payment, capturedValue: payment.value, surchargeCapturedValue: payment.surcharge.value };
    }
    return this.finish(merchant, payment, '00000000', ops);
  }

  /** @throws KassaError PAYMENT_NOT_FOUND for a missing payment and for another merchant's payment alike. */
  async getByPayId(merchantId: string, payId: string): Promise<Payment> {
    const p = /^[0-9a-f]{32}$/.test(payId) ? await this.deps.store.payments.findByPayId(merchantId, payId) : undefined;
    if (!p) throw new KassaError('PAYMENT_NOT_FOUND', `no payment ${payId}`);
    return p;
  }

  /** The latest payment with this transId (DESIGN.md §4). @throws KassaError PAYMENT_NOT_FOUND. */
  async getByTransId(merchantId: string, transId: string): Promise<Payment> {
    const p = await this.deps.store.payments.findLatestByTransId(merchantId, transId);
    if (!p) throw new KassaError('PAYMENT_NOT_FOUND', `no payment with transId ${transId}`);
    return p;
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
    await this.deps.store.transaction(async (tx) => {
      await tx.payments.update(final);
      await enqueuePaymentEvent(tx, this.deps, merchant, final, ok ? 'payment.authorized' : 'payment.failed');
    });
    return final;
  }

  private async enqueueAuthenticationNotification(
    tx: Store,
    merchant: Merchant,
    payment: Payment,
    authenticationResponse: AuthenticationResponse,
  ): Promise<void> {
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
  private checkCommand(merchant: Merchant, cmd: CreatePaymentCommand): void {
    const errors: FieldError[] = [];
    if (!isCurrencyWithMinorUnits(cmd.amount.currency)) {
      errors.push({ field: 'amount.currency', message: 'must be an ISO 4217 currency code with minor units' });
    }
    const card = cmd.card;
    if (card) {
      if (!passesLuhn(card.number)) {
        errors.push({ field: 'paymentMethods.card.number', message: 'is not a valid card number (Luhn check failed)' });
      }
      const month = Number(card.expiryDate.slice(4, 6));
      if (month < 1 || month > 12) {
        errors.push({ field: 'paymentMethods.card.expiryDate', message: 'must be YYYYMM with a month 01–12' });
      } else if (isExpired(card.expiryDate, this.deps.clock.now())) {
        errors.push({ field: 'paymentMethods.card.expiryDate', message: 'the card has expired' });
      }
    }
    if (cmd.channel === 'APP' && !cmd.sdkInfo) {
      errors.push({ field: 'sdkInfo', message: 'is required when channel is APP' });
    }
    if (cmd.channel === 'BROWSER' && cmd.integrationType === 'DIRECT' && !cmd.browserInfo) {
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
 * Checks a merchant URL (return, cancel, webhook): https, or http and loopback hosts for sandbox merchants only
 * (DESIGN.md §4). The notification dispatcher re-checks resolved addresses at delivery (SSRF guard).
 * @returns a message, or undefined when the URL is acceptable.
 */
export function checkMerchantUrl(url: string, sandbox: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an https URL';
  if (sandbox) return undefined;
  if (parsed.protocol !== 'https:') return 'must be an https URL (http is allowed for sandbox merchants only)';
  // Loopback, private, link-local and unspecified literals (127/8, 10/8, 172.16/12, 192.168/16, 169.254/16, ::1,
  // fc00::/7, fe80::/10, 0.0.0.0, …); names are checked on their resolved addresses at delivery (SSRF guard).
  if (isNonPublicHostLiteral(parsed.hostname)) {
    return 'loopback and private addresses are allowed for sandbox merchants only';
  }
  return undefined;
}
