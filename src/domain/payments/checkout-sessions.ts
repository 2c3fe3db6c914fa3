/**
 * Hosted payment page sessions (spec §1.8): creating one, reading it, the checkout page's view of it, and starting a
 * payment try under its transId. A session holds no payment until the cardholder starts paying.
 */
import { KassaError, validationError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import { checkCurrency } from '../merchants/merchant-service.js';
import { isHexId, newHexId } from '../ports/id-generator.js';
import type { Store } from '../ports/store.js';
import {
  type CheckoutSession,
  DEFAULT_SESSION_TTL_SECONDS,
  SESSION_TTL_BOUNDS_SECONDS,
  type SessionStatus,
  sessionStatus,
} from '../sessions/checkout-session.js';
import { MAX_SESSION_CARD_TRIES } from './card-testing.js';
import { delayedCaptureProblem } from './delayed-capture.js';
import { type FinishPaymentDeps, recordFinalPayment } from './finish-payment.js';
import {
  checkHostedCredentialOnFile,
  checkHostedUrls,
  hostedInformational,
  hostedPaymentExpiresAt,
  isWaitingForCard,
  newPendingPayment,
} from './hosted-pending-payment.js';
import type { HostedThreeDsPolicy, Payment } from './payment.js';
import type { PaymentServiceDeps } from './payment-deps.js';
import type { CreatePaymentCommand } from './payment-request.js';
import { isCancelledByCardholder } from './return-url.js';

/** A hosted payment page session request (`POST /api/v1/payments/sessions`). Amounts in minor units. */
export type CreateSessionCommand = Omit<
  CreatePaymentCommand,
  'integrationType' | 'card' | 'channel' | 'browserInfo' | 'sdkInfo' | 'challengePreference' | 'threeDsPolicy'
> & {
  expiresInSeconds?: number;
  /** `paymentMethods.card.threeDsPolicy`: honoured when the cardholder confirms a card in the session. */
  threeDsPolicy?: HostedThreeDsPolicy;
};

type SessionDeps = Pick<PaymentServiceDeps, 'store' | 'clock' | 'ids'>;

/**
 * Creates a hosted payment page session; no payment exists until the cardholder starts paying.
 * Expires at `expirationTime` when given (Paygate), else `expiresInSeconds` (Kassa's, 300–86400 s) after now.
 * @throws KassaError VALIDATION_FAILED (urls, expiresInSeconds, expirationTime), TRANS_ID_IN_USE (a live payment has the
 * transId).
 */
export async function createSession(
  deps: SessionDeps,
  merchant: Merchant,
  cmd: CreateSessionCommand,
): Promise<CheckoutSession> {
  checkCurrency(cmd.amount.currency);
  checkHostedUrls(merchant, cmd.urls, ['return', 'cancel']);
  checkHostedCredentialOnFile(cmd.informational?.credentialOnFile, deps.clock.now());
  const delayed = delayedCaptureProblem(cmd.captureMethod, cmd.delayedHours);
  if (delayed.length > 0) throw validationError(delayed);
  const now = deps.clock.now();
  const ttl =
    cmd.expirationTime !== undefined
      ? expirationTtlSeconds(cmd.expirationTime, now)
      : (cmd.expiresInSeconds ?? DEFAULT_SESSION_TTL_SECONDS);
  if (
    cmd.expirationTime === undefined &&
    (ttl < SESSION_TTL_BOUNDS_SECONDS.min || ttl > SESSION_TTL_BOUNDS_SECONDS.max)
  ) {
    throw validationError([{ field: 'expiresInSeconds', message: 'must be between 300 and 86400 seconds' }]);
  }
  const latest = await deps.store.payments.findLatestByTransId(merchant.merchantId, cmd.transId);
  if (latest && latest.status !== 'FAILED') {
    throw new KassaError('TRANS_ID_IN_USE', `transId ${cmd.transId} belongs to a payment that has not failed`);
  }
  const urls = cmd.urls as CheckoutSession['urls'];
  const session: CheckoutSession = {
    sessionId: newHexId(deps.ids),
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
    informational: hostedInformational(cmd.informational, cmd.threeDsPolicy, cmd.prefillInfo),
    status: 'OPEN',
    cardTries: 0,
    expiresAt:
      cmd.expirationTime !== undefined
        ? new Date(Date.parse(cmd.expirationTime))
        : new Date(now.getTime() + ttl * 1000),
    creationDate: now,
  };
  await deps.store.checkoutSessions.insert(session);
  return session;
}

/** The merchant's own session. @throws KassaError SESSION_NOT_FOUND for a missing one and another merchant's alike. */
export async function getSession(deps: SessionDeps, merchantId: string, sessionId: string): Promise<CheckoutSession> {
  const s = isHexId(sessionId) ? await deps.store.checkoutSessions.find(sessionId) : undefined;
  if (!s || s.merchantId !== merchantId) throw new KassaError('SESSION_NOT_FOUND');
  return withPaidStatus(s, deps.store);
}

/**
 * A session is COMPLETED once its latest payment was authorized (or later captured, refunded, reversed), and FAILED
 * once its last allowed card try failed (`MAX_SESSION_CARD_TRIES`: card-testing protection, issue 9 defect 5).
 */
async function withPaidStatus(session: CheckoutSession, store: Store): Promise<CheckoutSession> {
  if (session.status !== 'OPEN' || !session.payId) return session;
  const latest = await store.payments.findByPayId(session.merchantId, session.payId);
  if (latest?.status === 'FAILED') {
    return session.cardTries >= MAX_SESSION_CARD_TRIES ? { ...session, status: 'FAILED' } : session;
  }
  return latest && latest.status !== 'PENDING' ? { ...session, status: 'COMPLETED' } : session;
}

/**
 * A session and its merchant for the checkout page (the caller has checked the signed link); reads through `store`
 * (pass the transaction's), `lock` holding the session's row until it ends. @throws KassaError SESSION_NOT_FOUND.
 */
export async function sessionForPage(
  deps: SessionDeps,
  sessionId: string,
  store: Store = deps.store,
  { lock = false } = {},
): Promise<{ session: CheckoutSession; merchant: Merchant; status: SessionStatus }> {
  const found = await (lock ? store.checkoutSessions.findForUpdate(sessionId) : store.checkoutSessions.find(sessionId));
  const session = found && (await withPaidStatus(found, store));
  const merchant = session && (await store.merchants.find(session.merchantId));
  if (!session || !merchant) throw new KassaError('SESSION_NOT_FOUND');
  return { session, merchant, status: sessionStatus(session, deps.clock.now()) };
}

/**
 * Starts (or resumes) the session's current payment try: the latest payment if it is still waiting for a card,
 * else a new PENDING payment under the session's transId (the previous try FAILED). A session allows
 * `MAX_SESSION_CARD_TRIES` tries; asked for one more, it is stored FAILED (card-testing protection, issue 9 defect 5).
 * A try whose card-step link has expired (hostedPaymentExpiresAt) is not resumed: it ends FAILED 20040003 with
 * payment.failed, as the expiry sweep would end it, and a new try starts.
 * @throws KassaError SESSION_EXPIRED, SESSION_COMPLETED, SESSION_FAILED (tries used up).
 */
export function startSessionPayment(deps: FinishPaymentDeps, sessionId: string): Promise<Payment> {
  return currentTry(deps, sessionId, { cancel: false });
}

/**
 * The cardholder cancelled on the session's checkout page: the session's current try — resumed, or started as
 * startSessionPayment starts one, so that the merchant always gets a PayID, payment.failed and a FAILED payment under
 * the transId — ends FAILED 20040002 in the same transaction, as a cancel on the card or review step ends it
 * (HostedPaymentService.cancel). The transId is then free for a new payment (DESIGN.md §4: only a FAILED latest
 * payment frees it). A try the cardholder cancelled already (a double click) is returned again, and one already in
 * 3-D Secure untouched.
 * @throws KassaError SESSION_EXPIRED, SESSION_COMPLETED, SESSION_FAILED (tries used up), as startSessionPayment.
 */
export function cancelSessionCheckout(deps: FinishPaymentDeps, sessionId: string): Promise<Payment> {
  return currentTry(deps, sessionId, { cancel: true });
}

/**
 * The session's current try (see startSessionPayment), started or resumed in one transaction; with `cancel`, a try
 * still waiting for its card ends FAILED 20040002 in it, and a try the cardholder cancelled already is returned rather
 * than a new one started (see cancelSessionCheckout). Every payment the transaction ended is reported to
 * `onPaymentFinal` once it has committed (recordFinalPayment deleted their kept cards in it).
 */
async function currentTry(
  deps: FinishPaymentDeps,
  sessionId: string,
  { cancel }: { cancel: boolean },
): Promise<Payment> {
  const ended: Payment[] = [];
  const started = await deps.store.transaction(async (tx) => {
    // Every read goes through `tx`: SQLite has one connection, held by this transaction.
    // Under the session's row lock: two requests (a double-clicked cancel, a cancel racing a start) take turns, so a
    // try is started and counted once (on PostgreSQL a FAILED try frees the transId's unique index for a second one).
    const { session, merchant, status } = await sessionForPage(deps, sessionId, tx, { lock: true });
    if (status === 'EXPIRED') throw new KassaError('SESSION_EXPIRED');
    if (status === 'COMPLETED') throw new KassaError('SESSION_COMPLETED');
    // Stored, not thrown: a throw would roll the FAILED status back with the transaction.
    const fail = async () => {
      await tx.checkoutSessions.update({ ...session, status: 'FAILED' });
      return 'SESSION_FAILED' as const;
    };
    if (status === 'FAILED') return fail();
    const end = async (found: Payment) => {
      if (!cancel || !isWaitingForCard(found)) return found;
      // Decided again under the payment's row lock: a cancel on the card step or the expiry sweep may have ended it.
      const current = (await tx.payments.findByPayIdForUpdate(merchant.merchantId, found.payId)) ?? found;
      if (!isWaitingForCard(current)) return current;
      const final = await recordFinalPayment(tx, deps, merchant, current, '20040002', []);
      ended.push(final);
      return final;
    };
    let latest = await tx.payments.findLatestByTransId(merchant.merchantId, session.transId);
    if (latest && latest.sessionId === sessionId && latest.status === 'PENDING') {
      const expired =
        isWaitingForCard(latest) && deps.clock.now().getTime() >= hostedPaymentExpiresAt(latest).getTime();
      if (!expired) return end(latest);
      latest = await recordFinalPayment(tx, deps, merchant, latest, '20040003', []);
      ended.push(latest);
    }
    if (latest && latest.status !== 'FAILED') throw new KassaError('SESSION_COMPLETED');
    if (cancel && latest && latest.sessionId === sessionId && isCancelledByCardholder(latest)) return latest;
    // A try still open is resumed above whatever the count; only a new try is refused once the tries are used up.
    if (session.cardTries >= MAX_SESSION_CARD_TRIES) return fail();
    const payment = {
      ...(await newPendingPayment(deps, tx, merchant, {
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
      })),
      sessionId,
    };
    if ((await tx.payments.insert(payment)) === 'TRANS_ID_IN_USE') throw new KassaError('SESSION_COMPLETED');
    await tx.checkoutSessions.update({
      sessionId,
      status: 'OPEN',
      payId: payment.payId,
      cardTries: session.cardTries + 1,
    });
    return end(payment);
  });
  for (const final of ended) deps.onPaymentFinal?.(final);
  if (started === 'SESSION_FAILED') throw new KassaError('SESSION_FAILED');
  return started;
}

/** Longest a session may stay open when the merchant sets `expirationTime`: 30 days (a pay-by-link). */
const MAX_EXPIRATION_SECONDS = 30 * 24 * 3600;

/**
 * Seconds from `now` until Paygate's `expirationTime` (RFC 3339; paygate-v2-wire.md §2: the session expires then).
 * @throws KassaError VALIDATION_FAILED naming expirationTime when it is not at least 60 s ahead or beyond 30 days.
 */
function expirationTtlSeconds(expirationTime: string, now: Date): number {
  const seconds = Math.floor((Date.parse(expirationTime) - now.getTime()) / 1000);
  if (!Number.isFinite(seconds) || seconds < 60 || seconds > MAX_EXPIRATION_SECONDS) {
    throw validationError([
      { field: 'expirationTime', message: 'must be an RFC 3339 date-time between 1 minute and 30 days from now' },
    ]);
  }
  return seconds;
}
