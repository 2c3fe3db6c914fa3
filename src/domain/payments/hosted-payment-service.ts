/**
 * Over 300 lines on purpose: the card step's server side (take the card, quote, consent, confirm, cancel, expire) is
 * one conversation with the cardholder over one vaulted card, and splitting it would spread the card's lifetime rules
 * over several files. Sessions and pending-payment creation already live beside it (checkout-sessions.ts,
 * hosted-pending-payment.ts).
 */
import { TEXT_PATTERN } from '../../contracts/primitives.js';
import { type FieldError, KassaError, validationError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import { checkCurrency } from '../merchants/merchant-service.js';
import type { BinRecord } from '../ports/bin-table.js';
import type { CheckoutSession, SessionStatus } from '../sessions/checkout-session.js';
import type { SurchargeDecision } from '../surcharge/decide-surcharge.js';
import { type ConsentedCard, consentCovers, reviewDigest } from '../surcharge/surcharge-consent.js';
import { authorizeAtAcquirer } from './authorize-payment.js';
import { cardFingerprint, detectBrand, expiryProblem, passesLuhn, summarizeCard } from './card-checks.js';
import { holdsCardNumber } from './card-number-mask.js';
import { type CardTestingRefusal, type CardVelocityGuard, VELOCITY_LIMITED_CODE } from './card-testing.js';
import {
  type CreateSessionCommand,
  cancelSessionCheckout,
  createSession,
  getSession,
  sessionForPage,
  startSessionPayment,
} from './checkout-sessions.js';
import { delayedCaptureProblem } from './delayed-capture.js';
import { finishPayment, recordFinalPayment } from './finish-payment.js';
import {
  checkHostedCredentialOnFile,
  checkHostedExpirationTime,
  checkHostedUrls,
  decideHostedSurcharge,
  HOSTED_LINK_TTL_SECONDS,
  HOSTED_PAYMENT_EXPIRY_MS,
  hostedInformational,
  hostedPaymentExpiresAt,
  isWaitingForCard,
  newPendingPayment,
} from './hosted-pending-payment.js';
import type { Payment, SurchargeConsent } from './payment.js';
import { linkTtlMs, type PaymentServiceDeps } from './payment-deps.js';
import type { BrowserInfo, CardInput, CreatePaymentCommand } from './payment-request.js';
import { startBrowserAuthentication, threeDSResumeHrefOf } from './three-ds-browser-steps.js';

/**
 * What the hosted flows need: the payment operations' deps (the card vault holds the typed card, encrypted, from the
 * card step until authorization; the confirmation hands the payment to 3-D Secure in Kassa's pages).
 */
export type HostedPaymentServiceDeps = PaymentServiceDeps;

// Re-exported for the routes that build hosted links and session requests.
export type { CreateSessionCommand } from './checkout-sessions.js';
export {
  HOSTED_LINK_TTL_SECONDS,
  HOSTED_PAYMENT_EXPIRY_MS,
  hostedPaymentExpiresAt,
  isWaitingForCard,
} from './hosted-pending-payment.js';

/**
 * What happens after the cardholder confirmed: the 3-D Secure page to go to, or the ended payment; CARD_GONE when the
 * vaulted card expired (type it again), CARD_CHANGED when the vaulted card is not the one consented to (review again).
 */
export type ConfirmOutcome =
  | { kind: 'REDIRECT'; url: string }
  | { kind: 'ENDED'; payment: Payment }
  | { kind: 'CARD_GONE' }
  | { kind: 'CARD_CHANGED' };

/** A surcharge quote for a card on a hosted payment: the binding amounts the review step shows (minor units). */
export interface SurchargeQuote {
  brand?: 'VISA' | 'MASTERCARD';
  decision: SurchargeDecision;
  value: number;
  surchargeValue: number;
  totalValue: number;
  currency: string;
}

// The merchant API's rule for text (contracts/primitives.ts TEXT_PATTERN), so a typed cardholder name cannot carry
// control characters or bidi overrides the API would refuse in the same field. `u` as Ajv compiles it: a surrogate
// pair is one code point, only lone surrogates match the class.
const PRINTABLE_TEXT = new RegExp(TEXT_PATTERN, 'u');

/**
 * Hosted forms and the hosted payment page (spec §1.4, §1.8): creating hosted payments and sessions, and the card
 * step's server side — quoting the surcharge (DESIGN.md §7), taking the card, recording the cardholder's consent.
 * Card data never leaves this service in clear except towards authorization.
 */
export class HostedPaymentService {
  /**
   * `velocity`: the card-testing velocity limits per card and per address (card-testing.ts); without it (the CLI,
   * some tests) tries are not limited across sessions. `onCardTestingRefusal` is told each refused try (metrics).
   */
  constructor(
    private readonly deps: HostedPaymentServiceDeps,
    private readonly velocity?: CardVelocityGuard,
    private readonly onCardTestingRefusal: (reason: CardTestingRefusal) => void = () => {},
  ) {}

  /**
   * Creates a HOSTED payment (hosted forms): PENDING 60040001, no card yet; the cardholder types the card on
   * Kassa's card step. `urls.return` is required (where the browser goes at the end).
   * @throws KassaError VALIDATION_FAILED (urls, currency), TRANS_ID_IN_USE.
   */
  async createHostedPayment(merchant: Merchant, cmd: CreatePaymentCommand): Promise<Payment> {
    checkCurrency(cmd.amount.currency);
    checkHostedUrls(merchant, cmd.urls, ['return']);
    checkHostedCredentialOnFile(cmd.informational?.credentialOnFile, this.deps.clock.now());
    const delayed = delayedCaptureProblem(cmd.captureMethod, cmd.delayedHours);
    if (delayed.length > 0) throw validationError(delayed);
    checkHostedExpirationTime(cmd.expirationTime, this.deps.clock.now());
    const payment = await newPendingPayment(this.deps, this.deps.store, merchant, {
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
      informational: hostedInformational(
        cmd.informational,
        { ...cmd.threeDsPolicy, challengePreference: cmd.challengePreference },
        cmd.prefillInfo,
      ),
    });
    if ((await this.deps.store.payments.insert(payment)) === 'TRANS_ID_IN_USE') {
      throw new KassaError('TRANS_ID_IN_USE', `transId ${cmd.transId} belongs to a payment that has not failed`);
    }
    return payment;
  }

  /** See checkout-sessions.ts. @throws KassaError VALIDATION_FAILED, TRANS_ID_IN_USE. */
  createSession(merchant: Merchant, cmd: CreateSessionCommand): Promise<CheckoutSession> {
    return createSession(this.deps, merchant, cmd);
  }

  /** The merchant's own session. @throws KassaError SESSION_NOT_FOUND for a missing one and another merchant's alike. */
  getSession(merchantId: string, sessionId: string): Promise<CheckoutSession> {
    return getSession(this.deps, merchantId, sessionId);
  }

  /** A session and its merchant for the checkout page (the caller has checked the signed link). */
  sessionForPage(sessionId: string): Promise<{ session: CheckoutSession; merchant: Merchant; status: SessionStatus }> {
    return sessionForPage(this.deps, sessionId);
  }

  /** See checkout-sessions.ts. @throws KassaError SESSION_EXPIRED, SESSION_COMPLETED, SESSION_FAILED. */
  async startSessionPayment(sessionId: string): Promise<Payment> {
    try {
      return await startSessionPayment(this.deps, sessionId);
    } catch (error) {
      if (error instanceof KassaError && error.code === 'SESSION_FAILED') this.onCardTestingRefusal('session_tries');
      throw error;
    }
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
    return this.quoteFor(merchant, payment, digits.length >= 6 ? this.deps.bins.lookup(digits) : undefined, digits);
  }

  /** The quote for a card whose BIN record (if any) is known already. */
  private async quoteFor(
    merchant: Merchant,
    payment: Payment,
    bin: BinRecord | undefined,
    digits: string,
  ): Promise<SurchargeQuote> {
    const decision = await decideHostedSurcharge(this.deps.store, merchant, payment, bin);
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
   * surcharge decision, stored on the still-PENDING payment with the card summary (never the number or CVC). The
   * cardholder name is at most 45 characters (`too_long`) of the API's printable text (`invalid_characters`:
   * contracts/primitives.ts TEXT_PATTERN, no controls, lone surrogates or bidi controls). The one
   * place a hosted card is normalised (spaces and dashes dropped, name trimmed) and validated; its BIN is looked up
   * once. The card is vaulted here, once, for as long as the card step's link and the 3-D Secure pages after it may
   * take (HOSTED_LINK_TTL_SECONDS + the 3-D Secure link lifetime); every end of the payment deletes it earlier.
   * A payment that no longer waits for its card (isWaitingForCard), or whose cardholder has pressed Pay already, keeps
   * its card and quote: `notWaiting` with the payment as it is.
   * @returns the field errors, `notWaiting`, or the updated payment and its quote.
   */
  async takeCard(
    merchant: Merchant,
    payment: Payment,
    card: CardInput,
  ): Promise<
    | { ok: false; errors: FieldError[]; notWaiting?: undefined }
    | { ok: false; errors: []; notWaiting: true; payment: Payment }
    | { ok: true; payment: Payment; quote: SurchargeQuote }
  > {
    const errors: FieldError[] = [];
    const number = card.number.replace(/[\s-]/g, '');
    const bin = this.deps.bins.lookup(number);
    const brand = bin?.brand ?? detectBrand(number);
    if (!/^\d{12,19}$/.test(number) || !passesLuhn(number)) errors.push({ field: 'number', message: 'invalid_number' });
    else if (!brand) errors.push({ field: 'number', message: 'unsupported_brand' });
    else if (!acceptsBrand(payment, brand)) errors.push({ field: 'number', message: 'brand_not_accepted' });
    const expiry = expiryProblem(card.expiryDate, this.deps.clock.now());
    if (expiry) errors.push({ field: 'expiry', message: expiry === 'INVALID' ? 'invalid_expiry' : 'expired' });
    const securityCode = card.securityCode?.trim() ?? '';
    if (!/^\d{3,4}$/.test(securityCode)) errors.push({ field: 'securityCode', message: 'invalid_security_code' });
    const typedName = card.cardholderName?.trim();
    if (typedName !== undefined && typedName.length > 45) {
      errors.push({ field: 'cardholderName', message: 'too_long' });
    } else if (typedName !== undefined && (!PRINTABLE_TEXT.test(typedName) || holdsCardNumber(typedName))) {
      errors.push({ field: 'cardholderName', message: 'invalid_characters' });
    }
    if (errors.length > 0 || !brand) return { ok: false, errors };

    const quote = await this.quoteFor(merchant, payment, bin, number);
    const cardholderName = card.cardholderName?.trim() || undefined;
    const sealed = await this.deps.cardVault.seal(
      payment.payId,
      { ...card, number, securityCode, cardholderName },
      new Date(this.deps.clock.now().getTime() + HOSTED_LINK_TTL_SECONDS * 1000 + linkTtlMs(this.deps)),
    );
    // Under the payment's row lock, and only while it still waits for its card with no consent given: once the
    // cardholder pressed Pay (another tab), the confirmed card and quote are never replaced (money guard). The vaulted
    // card is written in the same transaction as the row naming it: two posts at once leave both of the same card.
    const taken = await this.deps.store.transaction(async (tx) => {
      const current = await tx.payments.findByPayIdForUpdate(payment.merchantId, payment.payId);
      if (!current || !isWaitingForCard(current) || current.surchargeConsent !== undefined) {
        return { ok: false as const, current: current ?? payment };
      }
      const updated: Payment = {
        ...current,
        card: summarizeCard({ ...card, number, cardholderName }, brand, bin, this.deps.dataKey),
        surcharge: { status: quote.decision.status, reason: quote.decision.reason, value: quote.decision.value },
        surchargeConsent: undefined,
        updatedAt: this.deps.clock.now(),
      };
      await tx.payments.update(updated);
      await tx.pendingCards.put(sealed);
      return { ok: true as const, updated };
    });
    if (!taken.ok) return { ok: false, errors: [], notWaiting: true, payment: taken.current };
    const { updated } = taken;
    return { ok: true, payment: updated, quote };
  }

  /**
   * Records the cardholder's consent to the amounts and the card the review step showed (DESIGN.md §7), under the
   * payment's row lock. `reviewDigest` is the review form's (surcharge-consent.ts reviewDigest): it names the card and
   * amounts shown, so a review left open while the card changed in another tab is refused even when the total is the
   * same; `totalValue` is the total shown. The consent stored names the card (brand, last four, fingerprint) that the
   * authorization after 3-D Secure must use.
   * @throws KassaError QUOTE_CHANGED when what was shown is not the stored card and quote, or the payment no longer
   * waits for its card (confirmed already, or ended).
   */
  async recordConsent(
    payment: Payment,
    shown: { totalValue: number; reviewDigest?: string; language: string },
  ): Promise<Payment> {
    const updated = await this.deps.store.transaction(async (tx) => {
      const current = await tx.payments.findByPayIdForUpdate(payment.merchantId, payment.payId);
      if (!current || !isWaitingForCard(current) || !current.card) throw new KassaError('QUOTE_CHANGED');
      const total = current.value + current.surcharge.value;
      if (shown.totalValue !== total) throw new KassaError('QUOTE_CHANGED');
      if (shown.reviewDigest !== undefined && shown.reviewDigest !== reviewDigest(current)) {
        throw new KassaError('QUOTE_CHANGED');
      }
      const { brand, last4, fingerprint } = current.card;
      const consent: SurchargeConsent & { card: ConsentedCard } = {
        consentedAt: this.deps.clock.now(),
        value: current.value,
        surchargeValue: current.surcharge.value,
        totalValue: total,
        currency: current.currency,
        language: shown.language,
        card: { brand, last4, fingerprint },
      };
      // Pay moves the payment off its card step in the same locked write: a second Pay (a double click, another
      // tab) finds it no longer waiting and authorizes nothing; 60000001 (in flight) is what AuthorizationRecovery
      // resolves should the confirmation die before its result.
      const next: Payment = {
        ...current,
        responseCode: '60000001',
        surchargeConsent: consent,
        updatedAt: this.deps.clock.now(),
      };
      await tx.payments.update(next);
      return next;
    });
    return updated;
  }

  /**
   * Takes back a consent whose card cannot be authorized (the vaulted card expired, or is not the card consented to):
   * the payment goes back to its card step (60040001) and the cardholder types and reviews a card again. Only while
   * it is confirmed but not yet handed on (PENDING 60000001 with its consent, recordConsent).
   */
  private async withdrawConsent(ref: Pick<Payment, 'merchantId' | 'payId'>): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const current = await tx.payments.findByPayIdForUpdate(ref.merchantId, ref.payId);
      const confirmed =
        current?.status === 'PENDING' && current.responseCode === '60000001' && current.surchargeConsent !== undefined;
      if (!current || !confirmed) return;
      await tx.payments.update({
        ...current,
        responseCode: '60040001',
        surchargeConsent: undefined,
        updatedAt: this.deps.clock.now(),
      });
    });
  }

  /**
   * Hands a confirmed hosted payment (card in the vault since the card step, consent stored) to 3-D Secure in Kassa's
   * pages: the 3DS Method page (REDIRECT), or — for a card outside every 3-D Secure range — the payment authorized
   * or declined at once (ENDED). CARD_GONE when the vaulted card expired: the cardholder must type it again.
   * `browserInfo` is the cardholder's browser as the confirmation request shows it (EMVCo browser data).
   */
  async confirm(merchant: Merchant, payment: Payment, browserInfo: BrowserInfo): Promise<ConfirmOutcome> {
    const card = await this.deps.cardVault.read(payment.payId, this.deps.clock.now());
    if (!card) {
      await this.withdrawConsent(payment);
      return { kind: 'CARD_GONE' };
    }
    // Money guard: only the card (and amounts) the cardholder confirmed goes on; a card put in the vault by another
    // tab since is sent back to the review.
    if (!consentCovers(payment.surchargeConsent, payment, cardFingerprint(card.number, this.deps.dataKey))) {
      await this.withdrawConsent(payment);
      return { kind: 'CARD_CHANGED' };
    }
    // Card testing (issue 9 defect 5): over a velocity limit, the try ends FAILED 20040005 before 3-D Secure or the
    // acquirer learns anything of the card.
    const verdict =
      this.velocity && payment.card && (await this.velocity.admit(payment.card.fingerprint, browserInfo.ipAddress));
    if (verdict && verdict !== 'OK') {
      this.onCardTestingRefusal(verdict);
      return { kind: 'ENDED', payment: await finishPayment(this.deps, merchant, payment, VELOCITY_LIMITED_CODE) };
    }
    const policy = payment.informational?.card?.threeDsPolicy;
    // Paygate `threeDsPolicy.skip` THIS_TRANSACTION / OUT_OF_SCOPE: the merchant takes the liability, no 3-D Secure
    // (as on DIRECT payments, docs/decisions.md); the card goes straight to the acquirer.
    if (policy?.skip === 'THIS_TRANSACTION' || policy?.skip === 'OUT_OF_SCOPE') {
      return { kind: 'ENDED', payment: await authorizeAtAcquirer(this.deps, merchant, payment, card) };
    }
    const started = await startBrowserAuthentication(
      this.deps,
      merchant,
      payment,
      card,
      {
        browserInfo,
        challengePreference: policy?.challengePreference ?? 'NO_PREFERENCE',
        ...(policy !== undefined && { threeDsPolicy: { skip: policy.skip, exemption: policy.exemption } }),
      },
      { vaulted: true },
    );
    if (started.status === 'PENDING' && started.redirectHref) return { kind: 'REDIRECT', url: started.redirectHref };
    return { kind: 'ENDED', payment: started };
  }

  /**
   * Where a hosted payment that has moved on from its card step, but is still PENDING, continues in the cardholder's
   * browser: Kassa's 3-D Secure page of its current step (the 3DS Method, the open challenge, the waiting page), so
   * the hosted link and Back resume it instead of leaving for the shop. Undefined when nothing waits in the browser.
   */
  threeDSPageOf(payment: Payment): Promise<string | undefined> {
    return threeDSResumeHrefOf(this.deps, payment);
  }

  /**
   * Ends a HOSTED payment whose card step has expired (hostedPaymentExpiresAt: Paygate `expirationTime`, or the link
   * lifetime) when the cardholder comes back to it: FAILED 20040003 with payment.failed, the typed card deleted —
   * what the expiry sweep does later otherwise. A payment no longer waiting on the card step is returned unchanged.
   */
  async expireIfDue(payment: Payment): Promise<Payment> {
    if (!isWaitingForCard(payment)) return payment;
    if (this.deps.clock.now().getTime() < hostedPaymentExpiresAt(payment).getTime()) return payment;
    return (await this.endAbandoned(payment)) ?? (await this.paymentForPage(payment.payId)).payment;
  }

  /**
   * Ends one HOSTED payment still on the card or review step: FAILED 20040003 with payment.failed, re-read under a
   * row lock and changed only if still waiting (safe on every node); the typed card is deleted either way.
   * @returns the ended payment, or undefined when it had moved on.
   */
  private async endAbandoned(stale: Pick<Payment, 'merchantId' | 'payId'>): Promise<Payment | undefined> {
    const { payment, ended } = await this.endIfWaiting(stale, '20040003');
    // An ended payment's card went with its transaction (recordFinalPayment); one that moved on loses it here.
    if (!ended) await this.deps.cardVault.delete(stale.payId);
    return ended ? payment : undefined;
  }

  /**
   * Ends one HOSTED payment with `responseCode` (FAILED, payment.failed queued and its card deleted in the same
   * transaction) if it is still waiting on the card or review step, decided under the payment's row lock: a second
   * caller (a double click, another node's sweep) finds it ended. @returns the payment as it now is (undefined when it
   * or its merchant is not found) and whether this call ended it.
   */
  private async endIfWaiting(
    ref: Pick<Payment, 'merchantId' | 'payId'>,
    responseCode: string,
  ): Promise<{ payment: Payment | undefined; ended: boolean }> {
    const outcome = await this.deps.store.transaction(async (tx) => {
      const payment = await tx.payments.findByPayIdForUpdate(ref.merchantId, ref.payId);
      const merchant = await tx.merchants.find(ref.merchantId);
      if (!payment || !merchant) return { payment: undefined, ended: false };
      if (!isWaitingForCard(payment)) return { payment, ended: false };
      return { payment: await recordFinalPayment(tx, this.deps, merchant, payment, responseCode, []), ended: true };
    });
    if (outcome.ended && outcome.payment) this.deps.onPaymentFinal?.(outcome.payment);
    return outcome;
  }

  /**
   * Ends a hosted payment the cardholder cancelled on the card or review step: FAILED with 20040002, the card
   * forgotten, payment.failed queued in the same transaction; its transId is then free for a new payment (DESIGN.md
   * §4). Re-read under a row lock and changed only if still waiting there, so a double-clicked cancel sends one
   * payment.failed and a payment that has moved on (3-D Secure, expired) is returned as it is.
   * @throws KassaError PAYMENT_NOT_FOUND.
   */
  async cancel(ref: Pick<Payment, 'merchantId' | 'payId'>): Promise<Payment> {
    const { payment } = await this.endIfWaiting(ref, '20040002');
    if (!payment) throw new KassaError('PAYMENT_NOT_FOUND');
    return payment;
  }

  /**
   * The cardholder cancelled on a session's checkout page: its current try ends FAILED 20040002 (see
   * checkout-sessions.ts). @throws KassaError SESSION_EXPIRED, SESSION_COMPLETED, SESSION_FAILED.
   */
  cancelSessionCheckout(sessionId: string): Promise<Payment> {
    return cancelSessionCheckout(this.deps, sessionId);
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
      if (await this.endAbandoned(stale)) ended++;
    }
    return ended;
  }
}

/**
 * Whether the merchant takes `brand` on this hosted payment: Paygate's `paymentMethods.card.subType` (the allowed
 * brands, e.g. ["VISA"]; paygate-v2-wire.md §2) limits the card step, in any case (`"visa"` is VISA); without it, or
 * empty, every brand Kassa supports.
 */
export function acceptsBrand(payment: Payment, brand: string): boolean {
  const allowed = payment.informational?.card?.subType;
  return allowed === undefined || allowed.length === 0 || allowed.some((b) => b.toUpperCase() === brand);
}
