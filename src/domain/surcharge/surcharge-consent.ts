/**
 * What the cardholder consented to on the hosted review step (DESIGN.md §7): the amounts shown and the card they were
 * shown for. A consent binds one card: a card changed in another tab after the review was shown is not the card the
 * cardholder confirmed, even when its total is the same, and must never be authorized.
 */
import { createHash } from 'node:crypto';

/** The card a consent was given for, as the review step showed it (brand, last four) and as Kassa recognises it. */
export interface ConsentedCard {
  brand: string;
  last4: string;
  /** The card summary's keyed fingerprint (card-checks.ts cardFingerprint), never the number. */
  fingerprint: string;
}

/** The amounts a consent covers, minor units of `currency`. */
export interface ConsentAmounts {
  value: number;
  surchargeValue: number;
  totalValue: number;
  currency: string;
}

/** What the review step shows: the payment, its amounts and its card (undefined before the card step). */
export interface ReviewedPayment {
  payId: string;
  value: number;
  currency: string;
  surcharge: { value: number };
  card?: { brand: string; last4: string; fingerprint: string };
}

/**
 * The digest the review form carries and the confirmation must give back: SHA-256 (base64url) over the payId, the
 * card's fingerprint and the amounts shown. It changes with every card change (and every amount change), so a review
 * page left open in one tab cannot confirm a card typed in another. The payId keeps it from linking one card across
 * payments; it reveals nothing the fingerprint does not.
 */
export function reviewDigest(payment: ReviewedPayment): string {
  const { card } = payment;
  return createHash('sha256')
    .update(
      [
        'kassa-review-v1',
        payment.payId,
        card?.fingerprint ?? '',
        payment.value,
        payment.surcharge.value,
        payment.currency,
      ].join('|'),
    )
    .digest('base64url');
}

/**
 * The card a stored consent names. Consents are stored as JSON with the payment (`surcharge_consent`); one recorded
 * before consents named their card has none, and covers no card.
 */
export function consentedCardOf(consent: object | undefined): ConsentedCard | undefined {
  const card = consent && 'card' in consent ? consent.card : undefined;
  if (typeof card !== 'object' || card === null) return undefined;
  const { brand, last4, fingerprint } = card as Record<string, unknown>;
  if (typeof brand !== 'string' || typeof last4 !== 'string' || typeof fingerprint !== 'string') return undefined;
  return { brand, last4, fingerprint };
}

/**
 * Whether the stored consent covers authorizing this card for these amounts: a consent is present, names the card
 * whose fingerprint is `cardFingerprint` (the card about to be sent to 3-D Secure and the acquirer), and its amounts
 * are the payment's. Money guard: a hosted payment is authorized only for what the cardholder confirmed.
 * A consent stored by the release before consents named their card (a payment confirmed on an older node during a
 * rolling upgrade) covers the card the payment row names, which is the card that release reviewed.
 */
export function consentCovers(
  consent: (ConsentAmounts & object) | undefined,
  payment: Pick<ReviewedPayment, 'value' | 'currency' | 'surcharge' | 'card'>,
  cardFingerprint: string,
): boolean {
  if (consent === undefined) return false;
  const named = consentedCardOf(consent)?.fingerprint ?? ('card' in consent ? undefined : payment.card?.fingerprint);
  return (
    named === cardFingerprint &&
    consent.value === payment.value &&
    consent.surchargeValue === payment.surcharge.value &&
    consent.totalValue === payment.value + payment.surcharge.value &&
    consent.currency === payment.currency
  );
}
