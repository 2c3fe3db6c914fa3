import type { BinRecord, CardBrand } from '../ports/bin-table.js';
import { isEeaCountry, SURCHARGE_MERCHANT_COUNTRIES } from './surcharge-countries.js';
import type { FeeRule, SurchargeRuleReason, SurchargeSettings } from './surcharge-settings.js';

/** Why a payment is not surcharged by the engine (DIRECT_INTEGRATION is decided by the payment service). */
export type SurchargeNotOfferedReason =
  | 'DISABLED'
  | 'COUNTRY_NOT_SUPPORTED'
  | 'CURRENCY_NOT_SUPPORTED'
  | 'CARD_UNKNOWN'
  | 'CARD_NOT_ELIGIBLE';

/**
 * The surcharge decision for one card on one payment (a result, never an exception). `value` is in minor units of
 * the payment currency; it is > 0 exactly when the status is APPLIED. `rule` is the merchant's fee rule that priced it.
 */
export type SurchargeDecision =
  | { status: 'APPLIED'; reason: SurchargeRuleReason; value: number; rule: FeeRule }
  | { status: 'NOT_OFFERED'; reason: SurchargeNotOfferedReason; value: 0 };

/** Input of `decideSurcharge`. */
export interface SurchargeInput {
  /** The merchant's settings; undefined when never configured (treated as disabled). */
  settings: SurchargeSettings | undefined;
  /** ISO 3166-1 alpha-2 country and ISO 4217 currency of the merchant profile. */
  merchant: { country: string; currency: string };
  /** The merchant's amount (integer minor units, > 0) and its ISO 4217 currency. */
  payment: { value: number; currency: string };
  /** The card's BIN table row; undefined when the BIN is not in the table. */
  card: BinRecord | undefined;
}

const notOffered = (reason: SurchargeNotOfferedReason): SurchargeDecision => ({
  status: 'NOT_OFFERED',
  reason,
  value: 0,
});

/**
 * The reasons a known card qualifies by, most preferred first: COMMERCIAL_CARD (any issuer country), then
 * NON_EEA_CARD (issuer country outside `EEA_COUNTRIES`). Empty for a consumer card issued in the EEA.
 */
export function qualifyingReasons(card: BinRecord): SurchargeRuleReason[] {
  const reasons: SurchargeRuleReason[] = [];
  if (card.product === 'COMMERCIAL') reasons.push('COMMERCIAL_CARD');
  if (!isEeaCountry(card.issuerCountry)) reasons.push('NON_EEA_CARD');
  return reasons;
}

/**
 * The rule that prices a card of `brand` qualifying by `reason`: the rule naming the brand wins over the `*` rule.
 * Undefined when the merchant declared no fee for this brand and reason.
 */
export function findFeeRule(
  rules: readonly FeeRule[],
  brand: CardBrand,
  reason: SurchargeRuleReason,
): FeeRule | undefined {
  const forReason = rules.filter((r) => r.reason === reason);
  return forReason.find((r) => r.brand === brand) ?? forReason.find((r) => r.brand === '*');
}

/**
 * The fee of a rule on a merchant amount, in minor units: `round_half_up(valueMinor × percentageBps / 10 000) + fixed`,
 * capped at `max` (DESIGN.md §7). Exact integer arithmetic (BigInt): no floating point touches money.
 * @throws RangeError when `valueMinor` or a rule value is not a non-negative safe integer, or the fee is not one.
 */
export function surchargeFee(valueMinor: number, rule: FeeRule): number {
  for (const [name, v] of [
    ['value', valueMinor],
    ['percentageBps', rule.percentageBps ?? 0],
    ['fixed', rule.fixed ?? 0],
    ['max', rule.max ?? 0],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 0)
      throw new RangeError(`${name} must be a non-negative safe integer, got ${v}`);
  }
  const bps = BigInt(rule.percentageBps ?? 0);
  // Half-up on non-negative integers: floor((v × bps + 5 000) / 10 000); BigInt division truncates, which is floor here.
  let fee = (BigInt(valueMinor) * bps + 5_000n) / 10_000n + BigInt(rule.fixed ?? 0);
  if (rule.max !== undefined && fee > BigInt(rule.max)) fee = BigInt(rule.max);
  if (fee > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`surcharge ${fee} exceeds the safe integer range`);
  return Number(fee);
}

/**
 * Decides whether a card payment is surcharged and by how much (spec §1.6–1.9, DESIGN.md §7). Pure.
 *
 * Checks, in this order; the first that fails gives the NOT_OFFERED reason:
 * 1. DISABLED: no settings, or surcharging not enabled on the merchant profile (spec §1.7).
 * 2. COUNTRY_NOT_SUPPORTED: merchant country not DK, FI or NO (spec §1.6).
 * 3. CURRENCY_NOT_SUPPORTED: payment currency differs from the merchant's currency.
 * 4. CARD_UNKNOWN: the BIN is not in the BIN table. Never surcharge when unsure whether the card is a regulated
 *    consumer card (PSD2 art. 62(4)).
 * 5. CARD_NOT_ELIGIBLE: the card is a consumer card issued in the EEA; or the merchant declared no fee rule for the
 *    card's brand and any reason it qualifies by; or that rule prices this amount at 0 (nothing to show the cardholder).
 *
 * Merchant-level checks come before card-level ones so that the reason tells the merchant what to change first.
 * A card that is both commercial and issued outside the EEA is surcharged as COMMERCIAL_CARD; only when the merchant
 * has no COMMERCIAL_CARD rule for its brand is the NON_EEA_CARD rule used. Within a reason, the rule naming the
 * card's brand wins over the `*` rule.
 * @throws RangeError when `payment.value` is not a positive safe integer (a bug upstream: amounts are validated first).
 */
export function decideSurcharge(input: SurchargeInput): SurchargeDecision {
  const { settings, merchant, payment, card } = input;
  if (!Number.isSafeInteger(payment.value) || payment.value <= 0) {
    throw new RangeError(`payment.value must be a positive integer of minor units, got ${payment.value}`);
  }
  if (!settings?.enabled) return notOffered('DISABLED');
  if (!SURCHARGE_MERCHANT_COUNTRIES.has(merchant.country)) return notOffered('COUNTRY_NOT_SUPPORTED');
  if (payment.currency !== merchant.currency) return notOffered('CURRENCY_NOT_SUPPORTED');
  if (!card) return notOffered('CARD_UNKNOWN');
  for (const reason of qualifyingReasons(card)) {
    const rule = findFeeRule(settings.rules, card.brand, reason);
    if (!rule) continue;
    const value = surchargeFee(payment.value, rule);
    return value > 0 ? { status: 'APPLIED', reason, value, rule } : notOffered('CARD_NOT_ELIGIBLE');
  }
  return notOffered('CARD_NOT_ELIGIBLE');
}
