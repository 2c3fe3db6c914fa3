/**
 * What the hosted flows share: link lifetimes, the merchant URL rules of hosted payments and sessions, the surcharge
 * decision under the merchant's settings, and a new PENDING hosted payment (a HOSTED payment, or a session's try).
 */

import type { PrefillInfo } from '../../contracts/create-request.js';
import { type CredentialOnFile, classifyCredentialOnFile } from '../cards/credential-on-file.js';
import { type FieldError, validationError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import { checkMerchantUrl } from '../merchants/merchant-url.js';
import type { BinRecord } from '../ports/bin-table.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { Store } from '../ports/store.js';
import { decideSurcharge, type SurchargeDecision } from '../surcharge/decide-surcharge.js';
import { holdsCardNumber } from './card-number-mask.js';
import type { HostedPrefill, HostedThreeDsPolicy, InformationalFields, Payment } from './payment.js';
import { payIdFromUuid } from './payment.js';
import type { CreatePaymentCommand } from './payment-request.js';

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

/**
 * The URL rules of hosted payments and sessions: `required` ones present, every one https (or, sandbox, http on
 * loopback; merchant-url.ts). @throws KassaError VALIDATION_FAILED naming each `urls.<name>`.
 */
export function checkHostedUrls(
  merchant: Merchant,
  urls: CreatePaymentCommand['urls'],
  required: ('return' | 'cancel')[],
): void {
  const errors: FieldError[] = [];
  for (const name of required) {
    if (!urls?.[name]) errors.push({ field: `urls.${name}`, message: 'is required for hosted payments' });
  }
  for (const [name, url] of Object.entries(urls ?? {})) {
    const problem = url
      ? checkMerchantUrl(url, merchant.sandbox, name === 'webhook' ? 'webhook' : 'browser')
      : undefined;
    if (problem) errors.push({ field: `urls.${name}`, message: problem });
  }
  if (errors.length > 0) throw validationError(errors);
}

/** The surcharge decision (DESIGN.md §7) for a card — or, before it is known, `undefined` — under the merchant's settings. */
export async function decideHostedSurcharge(
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

/** The fields a hosted payment takes from its request (or its session). */
export type HostedPaymentFields = Pick<
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
>;

/**
 * Whether a hosted payment is still waiting on Kassa's card or review step (PENDING 60040001): the state a cancel, the
 * link's expiry or the expiry sweep may end. One in 3-D Secure (PENDING 6001…) or final is not.
 */
export function isWaitingForCard(payment: Pick<Payment, 'status' | 'responseCode'>): boolean {
  return payment.status === 'PENDING' && payment.responseCode === '60040001';
}

/**
 * A new PENDING hosted payment (60040001, not stored yet); its surcharge is decided as far as possible before the card
 * is known. Reads the merchant's surcharge settings through `store` (pass the transaction's).
 */
export async function newPendingPayment(
  deps: { clock: Clock; ids: IdGenerator },
  store: Store,
  merchant: Merchant,
  p: HostedPaymentFields,
): Promise<Payment> {
  const now = deps.clock.now();
  const before = await decideHostedSurcharge(store, merchant, p, undefined);
  return {
    ...p,
    payId: payIdFromUuid(deps.ids.uuid()),
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

/**
 * A hosted page takes the card from the cardholder, so with `credentialOnFile` it can only be the initial payment
 * that stores the card (the card step discloses it); payments with a stored card are DIRECT.
 * @param now the creation time (classifyCredentialOnFile).
 * @throws KassaError VALIDATION_FAILED naming the credentialOnFile member.
 */
export function checkHostedCredentialOnFile(cof: CredentialOnFile | undefined, now: Date): void {
  if (cof === undefined) return;
  const use = classifyCredentialOnFile(cof, now);
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
 * The informational fields of a HOSTED payment or session with what Kassa's own pages need kept beside them: the
 * 3-D Secure policy the confirmation honours (`paymentMethods.card.threeDsPolicy`: challengePreference, skip,
 * exemption; Kassa's extensions for DIRECT calls are dropped) and the card step's prefill
 * (`paymentMethods.card.prefillInfo`: cardholder name and expiry only — the number and security code are never
 * stored, PCI DSS req. 3.3 and 3.5, so they are not prefilled; nor is a name holding a card number, holdsCardNumber).
 */
export function hostedInformational(
  informational: InformationalFields | undefined,
  policy: HostedThreeDsPolicy | undefined,
  prefillInfo: PrefillInfo | undefined,
): InformationalFields | undefined {
  const threeDsPolicy = policy && {
    ...(policy.challengePreference !== undefined && { challengePreference: policy.challengePreference }),
    ...(policy.skip !== undefined && { skip: policy.skip }),
    ...(policy.exemption !== undefined && { exemption: policy.exemption }),
  };
  const expiry = prefillInfo?.expiryDate;
  const name = prefillInfo?.cardholderName?.trim();
  const prefill: HostedPrefill = {
    ...(name && !holdsCardNumber(name) && { cardholderName: name }),
    ...(expiry !== undefined && /^\d{6}$/.test(expiry) && { expiryDate: expiry }),
  };
  const card = {
    ...informational?.card,
    ...(threeDsPolicy && Object.keys(threeDsPolicy).length > 0 && { threeDsPolicy }),
    ...(Object.keys(prefill).length > 0 && { prefill }),
  };
  if (Object.keys(card).length === 0) return informational;
  return { ...informational, card };
}

/** Longest a HOSTED payment's link may stay valid (ms): its default lifetime; a longer pay-by-link is a session. */
const HOSTED_LINK_TTL_MS = HOSTED_LINK_TTL_SECONDS * 1000;

/**
 * When the card step of a HOSTED payment expires: Paygate's `expirationTime` when the merchant set one (it may only
 * shorten the link), else HOSTED_LINK_TTL_SECONDS after creation. A session's try expires with its link likewise.
 */
export function hostedPaymentExpiresAt(payment: Pick<Payment, 'creationDate' | 'informational'>): Date {
  const byDefault = payment.creationDate.getTime() + HOSTED_LINK_TTL_MS;
  const set = payment.informational?.expirationTime;
  const at = set === undefined ? Number.NaN : Date.parse(set);
  return new Date(Number.isFinite(at) ? Math.min(at, byDefault) : byDefault);
}

/**
 * Checks Paygate's `expirationTime` (RFC 3339) of a HOSTED payment: at least 1 minute and at most
 * HOSTED_LINK_TTL_SECONDS (30 min) ahead of `now` — a link open for longer is a session's (up to 30 days).
 * @throws KassaError VALIDATION_FAILED naming expirationTime.
 */
export function checkHostedExpirationTime(expirationTime: string | undefined, now: Date): void {
  if (expirationTime === undefined) return;
  const ms = Date.parse(expirationTime) - now.getTime();
  if (!Number.isFinite(ms) || ms < 60_000 || ms > HOSTED_LINK_TTL_MS) {
    throw validationError([
      {
        field: 'expirationTime',
        message:
          'must be an RFC 3339 date-time between 1 and 30 minutes from now on a HOSTED payment (a session may stay open up to 30 days)',
      },
    ]);
  }
}
