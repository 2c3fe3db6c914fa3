import { type CredentialOnFile, classifyCredentialOnFile } from '../cards/credential-on-file.js';
import { type FieldError, KassaError, validationError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import { checkMerchantUrl } from '../merchants/merchant-url.js';
import type { BinRecord, BinTable } from '../ports/bin-table.js';
import type { CardVault } from '../ports/card-vault.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { Store } from '../ports/store.js';
import {
  type CheckoutSession,
  DEFAULT_SESSION_TTL_SECONDS,
  SESSION_TTL_BOUNDS_SECONDS,
  sessionStatus,
} from '../sessions/checkout-session.js';
import { decideSurcharge, type SurchargeDecision } from '../surcharge/decide-surcharge.js';
import { detectBrand, expiryProblem, passesLuhn, summarizeCard } from './card-checks.js';
import type { Payment, SurchargeConsent } from './payment.js';
import { payIdFromUuid } from './payment.js';
import { enqueuePaymentEvent } from './payment-events.js';
import type { CardInput, CreatePaymentCommand } from './payment-request.js';

/** What the hosted flows need. */
export interface HostedPaymentServiceDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  bins: BinTable;
  /** Key of card fingerprints. */
  dataKey: string;
  /** Holds the typed card, encrypted, from the card step until authorization. */
  cardVault: CardVault;
  /** Kassa's public https base URL (for the payment details in events). */
  publicUrl: string;
}

/**
 * How long a link to the hosted card step stays valid (seconds): from a HOSTED payment's creation, or from the start
 * of a session's try. Also how long a typed card waits in the vault for the cardholder's confirmation.
 */
export const HOSTED_LINK_TTL_SECONDS = 30 * 60;

/**
 * How long a HOSTED payment waits on the card step before the expiry sweep ends it (ms): the link's lifetime plus a
 * minute of grace for a form posted just before the link expired.
 */
export const HOSTED_PAYMENT_EXPIRY_MS = (HOSTED_LINK_TTL_SECONDS + 60) * 1000;

/** A hosted payment page session request (`POST /api/v1/payments/sessions`). Amounts in minor units. */
export type CreateSessionCommand = Omit<
  CreatePaymentCommand,
  'integrationType' | 'card' | 'channel' | 'browserInfo' | 'sdkInfo' | 'challengePreference'
> & { expiresInSeconds?: number };

/** A surcharge quote for a card on a hosted payment: the binding amounts the review step shows (minor units). */
export interface SurchargeQuote {
  brand?: 'VISA' | 'MASTERCARD';
  decision: SurchargeDecision;
  value: number;
  surchargeValue: number;
  totalValue: number;
  currency: string;
}

/**
 * A hosted page takes the card from the cardholder, so with `credentialOnFile` it can only be the initial payment
 * that stores the card (the card step discloses it); payments with a stored card are DIRECT.
 * @throws KassaError VALIDATION_FAILED naming the credentialOnFile member.
 */
function checkHostedCredentialOnFile(cof: CredentialOnFile | undefined): void {
  if (cof === undefined) return;
  const use = classifyCredentialOnFile(cof);
  if (!use.ok) throw validationError(use.problems);
  if (use.use !== 'INITIAL') {
    throw validationError([
      {
        field: 'credentialOnFile.initialPayment',
        message: 'a hosted payment stores a new card (initialPayment true); pay with a stored card DIRECT',
      },
    ]);
  }
}

/**
 * Hosted forms and the hosted payment page (spec §1.4, §1.8): creating hosted payments and sessions, and the card
 * step's server side — quoting the surcharge (DESIGN.md §7), taking the card, recording the cardholder's consent.
 * Card data never leaves this service in clear except towards authorization.
 */
export class HostedPaymentService {
  constructor(private readonly deps: HostedPaymentServiceDeps) {}

  /**
   * Creates a HOSTED payment (hosted forms): PENDING 60040001, no card yet; the cardholder types the card on
   * Kassa's card step. `urls.return` is required (where the browser goes at the end).
   * @throws KassaError VALIDATION_FAILED (urls, currency), TRANS_ID_IN_USE.
   */
  async createHostedPayment(merchant: Merchant, cmd: CreatePaymentCommand): Promise<Payment> {
    this.checkUrls(merchant, cmd.urls, ['return']);
    checkHostedCredentialOnFile(cmd.informational?.credentialOnFile);
    const payment = await this.newPendingPayment(merchant, {
      transId: cmd.transId,
      refNr: cmd.refNr,
      value: cmd.amount.value,
      currency: cmd.amount.currency,
      captureMethod: cmd.captureMethod,
      language: cmd.language,
      order: cmd.order,
      customerInfo: cmd.customerInfo,
      urls: cmd.urls,
      metadata: cmd.metadata,
      informational: cmd.informational,
    });
    if ((await this.deps.store.payments.insert(payment)) === 'TRANS_ID_IN_USE') {
      throw new KassaError('TRANS_ID_IN_USE', `transId ${cmd.transId} belongs to a payment that has not failed`);
    }
    return payment;
  }

  /**
   * Creates a hosted payment page session; no payment exists until the cardholder starts paying.
   * @throws KassaError VALIDATION_FAILED (urls, expiresInSeconds), TRANS_ID_IN_USE (a live payment has the transId).
   */
  async createSession(merchant: Merchant, cmd: CreateSessionCommand): Promise<CheckoutSession> {
    this.checkUrls(merchant, cmd.urls, ['return', 'cancel']);
    checkHostedCredentialOnFile(cmd.informational?.credentialOnFile);
    const ttl = cmd.expiresInSeconds ?? DEFAULT_SESSION_TTL_SECONDS;
    if (ttl < SESSION_TTL_BOUNDS_SECONDS.min || ttl > SESSION_TTL_BOUNDS_SECONDS.max) {
      throw validationError([{ field: 'expiresInSeconds', message: 'must be between 300 and 86400 seconds' }]);
    }
    const latest = await this.deps.store.payments.findLatestByTransId(merchant.merchantId, cmd.transId);
    if (latest && latest.status !== 'FAILED') {
      throw new KassaError('TRANS_ID_IN_USE', `transId ${cmd.transId} belongs to a payment that has not failed`);
    }
    const now = this.deps.clock.now();
    const urls = cmd.urls as CheckoutSession['urls'];
    const session: CheckoutSession = {
      sessionId: payIdFromUuid(this.deps.ids.uuid()),
      merchantId: merchant.merchantId,
      transId: cmd.transId,
      refNr: cmd.refNr,
      value: cmd.amount.value,
      currency: cmd.amount.currency,
      captureMethod: cmd.captureMethod,
      language: cmd.language,
      order: cmd.order,
      customerInfo: cmd.customerInfo,
      urls,
      metadata: cmd.metadata,
      informational: cmd.informational,
      status: 'OPEN',
      expiresAt: new Date(now.getTime() + ttl * 1000),
      creationDate: now,
    };
    await this.deps.store.checkoutSessions.insert(session);
    return session;
  }

  /** The merchant's own session. @throws KassaError NOT_FOUND for a missing one and another merchant's alike. */
  async getSession(merchantId: string, sessionId: string): Promise<CheckoutSession> {
    const s = /^[0-9a-f]{32}$/.test(sessionId) ? await this.deps.store.checkoutSessions.find(sessionId) : undefined;
    if (!s || s.merchantId !== merchantId) throw new KassaError('SESSION_NOT_FOUND');
    return this.withPaidStatus(s, this.deps.store);
  }

  /** A session is COMPLETED once its latest payment was authorized (or later captured, refunded, reversed). */
  private async withPaidStatus(session: CheckoutSession, store: Store): Promise<CheckoutSession> {
    if (session.status === 'COMPLETED' || !session.payId) return session;
    const latest = await store.payments.findByPayId(session.merchantId, session.payId);
    const paid = latest && latest.status !== 'PENDING' && latest.status !== 'FAILED';
    return paid ? { ...session, status: 'COMPLETED' } : session;
  }

  /** A session and its merchant for the checkout page (the caller has checked the signed link). */
  async sessionForPage(
    sessionId: string,
    store: Store = this.deps.store,
  ): Promise<{ session: CheckoutSession; merchant: Merchant; status: 'OPEN' | 'COMPLETED' | 'EXPIRED' }> {
    const found = await store.checkoutSessions.find(sessionId);
    const session = found && (await this.withPaidStatus(found, store));
    const merchant = session && (await store.merchants.find(session.merchantId));
    if (!session || !merchant) throw new KassaError('SESSION_NOT_FOUND');
    return { session, merchant, status: sessionStatus(session, this.deps.clock.now()) };
  }

  /**
   * Starts (or resumes) the session's current payment try: the latest payment if it is still waiting for a card,
   * else a new PENDING payment under the session's transId (the previous try FAILED).
   * @throws KassaError SESSION_EXPIRED, SESSION_COMPLETED.
   */
  async startSessionPayment(sessionId: string): Promise<Payment> {
    return this.deps.store.transaction(async (tx) => {
      // Every read goes through `tx`: SQLite has one connection, held by this transaction.
      const { session, merchant, status } = await this.sessionForPage(sessionId, tx);
      if (status === 'EXPIRED') throw new KassaError('SESSION_EXPIRED');
      if (status === 'COMPLETED') throw new KassaError('SESSION_COMPLETED');
      const latest = await tx.payments.findLatestByTransId(merchant.merchantId, session.transId);
      if (latest && latest.sessionId === sessionId && latest.status === 'PENDING') return latest;
      if (latest && latest.status !== 'FAILED') throw new KassaError('SESSION_COMPLETED');
      const payment = {
        ...(await this.newPendingPayment(
          merchant,
          {
            transId: session.transId,
            refNr: session.refNr,
            value: session.value,
            currency: session.currency,
            captureMethod: session.captureMethod,
            language: session.language,
            order: session.order,
            customerInfo: session.customerInfo,
            urls: session.urls,
            metadata: session.metadata,
            informational: session.informational,
          },
          tx,
        )),
        sessionId,
      };
      if ((await tx.payments.insert(payment)) === 'TRANS_ID_IN_USE') throw new KassaError('SESSION_COMPLETED');
      await tx.checkoutSessions.update({ sessionId, status: 'OPEN', payId: payment.payId });
      return payment;
    });
  }

  /** A hosted payment and its merchant for the card step (the caller has checked the signed link). */
  async paymentForPage(payId: string): Promise<{ payment: Payment; merchant: Merchant; session?: CheckoutSession }> {
    const row = await this.deps.store.payments.findByPayIdAnyMerchant(payId);
    const merchant = row && (await this.deps.store.merchants.find(row.merchantId));
    if (!row || !merchant || row.integrationType !== 'HOSTED') throw new KassaError('PAYMENT_NOT_FOUND');
    const session = row.sessionId ? await this.deps.store.checkoutSessions.find(row.sessionId) : undefined;
    return { payment: row, merchant, session };
  }

  /**
   * Quotes the surcharge of a card (number or its first 6–8 digits) on a hosted payment: the live preview of the card
   * step and the binding amounts of the review step. Pure apart from reading the merchant's settings.
   */
  async quote(merchant: Merchant, payment: Payment, cardNumberPrefix: string): Promise<SurchargeQuote> {
    const digits = cardNumberPrefix.replace(/\D/g, '');
    const bin = digits.length >= 6 ? this.deps.bins.lookup(digits) : undefined;
    const decision = await this.decide(this.deps.store, merchant, payment, bin);
    return {
      brand: bin?.brand ?? detectBrand(digits),
      decision,
      value: payment.value,
      surchargeValue: decision.value,
      totalValue: payment.value + decision.value,
      currency: payment.currency,
    };
  }

  /**
   * Checks a card typed on the card step and prices it: Luhn, expiry, brand (errors name the form field), then the
   * surcharge decision, stored on the still-PENDING payment with the card summary (never the number or CVC).
   * @returns the field errors, or the updated payment and its quote.
   */
  async takeCard(
    merchant: Merchant,
    payment: Payment,
    card: CardInput,
  ): Promise<{ ok: false; errors: FieldError[] } | { ok: true; payment: Payment; quote: SurchargeQuote }> {
    const errors: FieldError[] = [];
    const number = card.number.replace(/[\s-]/g, '');
    const bin = this.deps.bins.lookup(number);
    const brand = bin?.brand ?? detectBrand(number);
    if (!/^\d{12,19}$/.test(number) || !passesLuhn(number)) errors.push({ field: 'number', message: 'invalid_number' });
    else if (!brand) errors.push({ field: 'number', message: 'unsupported_brand' });
    const expiry = expiryProblem(card.expiryDate, this.deps.clock.now());
    if (expiry) errors.push({ field: 'expiry', message: expiry === 'INVALID' ? 'invalid_expiry' : 'expired' });
    if (!/^\d{3,4}$/.test(card.securityCode ?? ''))
      errors.push({ field: 'securityCode', message: 'invalid_security_code' });
    if (card.cardholderName !== undefined && card.cardholderName.trim().length > 45) {
      errors.push({ field: 'cardholderName', message: 'too_long' });
    }
    if (errors.length > 0 || !brand) return { ok: false, errors };

    const quote = await this.quote(merchant, payment, number);
    const cardholderName = card.cardholderName?.trim() || undefined;
    const updated: Payment = {
      ...payment,
      card: summarizeCard({ ...card, number, cardholderName }, brand, bin, this.deps.dataKey),
      surcharge: { status: quote.decision.status, reason: quote.decision.reason, value: quote.decision.value },
      surchargeConsent: undefined,
      updatedAt: this.deps.clock.now(),
    };
    await this.deps.store.payments.update(updated);
    await this.deps.cardVault.put(
      payment.payId,
      { ...card, number },
      new Date(this.deps.clock.now().getTime() + HOSTED_LINK_TTL_SECONDS * 1000),
    );
    return { ok: true, payment: updated, quote };
  }

  /**
   * Records the cardholder's consent to the amounts the review step showed (DESIGN.md §7). The amounts must be the
   * stored quote's: a stale page (the card changed in another tab) is refused.
   * @throws KassaError QUOTE_CHANGED when `shown` differs from the stored quote.
   */
  async recordConsent(payment: Payment, shown: { totalValue: number; language: string }): Promise<Payment> {
    const total = payment.value + payment.surcharge.value;
    if (shown.totalValue !== total) throw new KassaError('QUOTE_CHANGED');
    const consent: SurchargeConsent = {
      consentedAt: this.deps.clock.now(),
      value: payment.value,
      surchargeValue: payment.surcharge.value,
      totalValue: total,
      currency: payment.currency,
      language: shown.language,
    };
    const updated = { ...payment, surchargeConsent: consent, updatedAt: this.deps.clock.now() };
    await this.deps.store.payments.update(updated);
    return updated;
  }

  /**
   * The card typed on the card step, for authorization after the cardholder confirmed.
   * @returns undefined when it is gone (retention expired): the cardholder must type it again.
   */
  async cardOf(payment: Payment): Promise<CardInput | undefined> {
    return this.deps.cardVault.take(payment.payId, this.deps.clock.now());
  }

  /**
   * Ends a hosted payment the cardholder cancelled: FAILED with 20040002, the card forgotten, payment.failed queued in
   * the same transaction.
   */
  async cancel(payment: Payment): Promise<Payment> {
    const merchant = await this.deps.store.merchants.find(payment.merchantId);
    if (!merchant) throw new KassaError('PAYMENT_NOT_FOUND');
    const failed: Payment = {
      ...payment,
      status: 'FAILED',
      responseCode: '20040002',
      updatedAt: this.deps.clock.now(),
    };
    await this.deps.store.transaction(async (tx) => {
      await tx.payments.update(failed);
      await enqueuePaymentEvent(tx, this.deps, merchant, failed, 'payment.failed');
    });
    await this.deps.cardVault.delete(payment.payId);
    return failed;
  }

  /** The surcharge decision (DESIGN.md §7) for a card — or, before it is known, `undefined` — under the merchant's settings. */
  private async decide(
    store: Store,
    merchant: Merchant,
    amount: { value: number; currency: string },
    card: BinRecord | undefined,
  ): Promise<SurchargeDecision> {
    const settings = await store.surchargeSettings.get(merchant.merchantId);
    return decideSurcharge({
      settings: settings?.settings,
      merchant: { country: merchant.country, currency: merchant.currency },
      payment: { value: amount.value, currency: amount.currency },
      card,
    });
  }

  /**
   * Ends HOSTED payments the cardholder never completed: still on the card or review step (60040001) when their link
   * has expired → FAILED 20040003 with payment.failed, typed card deleted. Payments already in 3-D Secure are the 3-D
   * Secure sweep's. Safe on every node: each payment is re-read under a row lock and changed only if still waiting.
   * @returns how many payments it ended.
   */
  async expireAbandonedHostedPayments(limit = 100): Promise<number> {
    const now = this.deps.clock.now();
    const before = new Date(now.getTime() - HOSTED_PAYMENT_EXPIRY_MS);
    let ended = 0;
    for (const stale of await this.deps.store.payments.findWaitingHostedCreatedBefore(before, limit)) {
      const done = await this.deps.store.transaction(async (tx) => {
        const payment = await tx.payments.findByPayIdForUpdate(stale.merchantId, stale.payId);
        const merchant = await tx.merchants.find(stale.merchantId);
        if (!payment || !merchant || payment.status !== 'PENDING' || payment.responseCode !== '60040001') return false;
        const failed: Payment = { ...payment, status: 'FAILED', responseCode: '20040003', updatedAt: now };
        await tx.payments.update(failed);
        await enqueuePaymentEvent(tx, this.deps, merchant, failed, 'payment.failed');
        return true;
      });
      await this.deps.cardVault.delete(stale.payId);
      if (done) ended++;
    }
    return ended;
  }

  /** A new PENDING hosted payment; its surcharge is decided as far as possible before the card is known. */
  private async newPendingPayment(
    merchant: Merchant,
    p: Pick<
      Payment,
      | 'transId'
      | 'refNr'
      | 'value'
      | 'currency'
      | 'captureMethod'
      | 'language'
      | 'order'
      | 'customerInfo'
      | 'urls'
      | 'metadata'
      | 'informational'
    >,
    store: Store = this.deps.store,
  ): Promise<Payment> {
    const now = this.deps.clock.now();
    const before = await this.decide(store, merchant, p, undefined);
    return {
      ...p,
      payId: payIdFromUuid(this.deps.ids.uuid()),
      merchantId: merchant.merchantId,
      status: 'PENDING',
      responseCode: '60040001',
      capturedValue: 0,
      refundedValue: 0,
      surcharge: { status: 'NOT_OFFERED', reason: before.reason, value: 0 },
      surchargeCapturedValue: 0,
      surchargeRefundedValue: 0,
      integrationType: 'HOSTED',
      channel: 'ECOM',
      operations: [],
      creationDate: now,
      updatedAt: now,
    };
  }

  private checkUrls(merchant: Merchant, urls: CreatePaymentCommand['urls'], required: ('return' | 'cancel')[]): void {
    const errors: FieldError[] = [];
    for (const name of required) {
      if (!urls?.[name]) errors.push({ field: `urls.${name}`, message: 'is required for hosted payments' });
    }
    for (const [name, url] of Object.entries(urls ?? {})) {
      const problem = url ? checkMerchantUrl(url, merchant.sandbox) : undefined;
      if (problem) errors.push({ field: `urls.${name}`, message: problem });
    }
    if (errors.length > 0) throw validationError(errors);
  }
}
