import type { FieldError } from '../errors/error-catalogue.js';
import type { CardBrand } from '../ports/bin-table.js';

/** Why a card qualifies for a surcharge (DESIGN.md §7); a fee rule is keyed by one of these. */
export type SurchargeRuleReason = 'COMMERCIAL_CARD' | 'NON_EEA_CARD';

/** The brand a fee rule applies to: one brand, or `*` for every brand without a rule of its own. */
export type FeeRuleBrand = CardBrand | '*';

/** Every value of `SurchargeRuleReason`, in the order eligibility prefers them (commercial first). */
export const SURCHARGE_RULE_REASONS: readonly SurchargeRuleReason[] = ['COMMERCIAL_CARD', 'NON_EEA_CARD'];

/** Every value of `FeeRuleBrand`. */
export const FEE_RULE_BRANDS: readonly FeeRuleBrand[] = ['VISA', 'MASTERCARD', '*'];

/** Largest fixed fee or cap a rule may name, in minor units (the payment amount cap of docs/decisions.md). */
export const MAX_FEE_MINOR = 99_999_999_999;

/** Longest actor name kept in the audit log. */
export const MAX_ACTOR_LENGTH = 100;

/**
 * One fee rule of a merchant (DESIGN.md §7): the merchant's declared acceptance cost for cards of `brand` that
 * qualify by `reason`. The fee is `round_half_up(amount × percentageBps / 10 000) + fixed`, capped at `max`, in minor
 * units of the payment currency (which is always the merchant's currency). At least one of `percentageBps` and `fixed`.
 */
export interface FeeRule {
  brand: FeeRuleBrand;
  reason: SurchargeRuleReason;
  /** Basis points of the merchant amount: integer 0–10 000 (180 = 1.80 %). */
  percentageBps?: number;
  /** Fixed part, integer minor units ≥ 0. */
  fixed?: number;
  /** Cap of the whole fee, integer minor units ≥ 1. */
  max?: number;
}

/** A merchant's surcharge settings, stored on the merchant profile (spec §1.7). */
export interface SurchargeSettings {
  enabled: boolean;
  /** At most one rule per (brand, reason); order carries no meaning. */
  rules: FeeRule[];
}

/** The settings of a merchant whose surcharging was never configured. */
export const DEFAULT_SURCHARGE_SETTINGS: SurchargeSettings = Object.freeze({ enabled: false, rules: [] });

/** What a support-desk change did. */
export type SurchargeAuditAction = 'ENABLE' | 'DISABLE';

/** One row of the surcharge audit log: who changed a merchant's settings, when, from what, to what (DESIGN.md §7). */
export interface SurchargeAuditEntry {
  merchantId: string;
  /** 1, 2, … per merchant, in the order the changes were made. */
  seq: number;
  action: SurchargeAuditAction;
  /** Who made the change: `cli:<os user>`, the admin API's `x-kassa-actor`, or `admin-api`. */
  actor: string;
  /** When (Clock port). */
  at: Date;
  /** The settings before the change (`DEFAULT_SURCHARGE_SETTINGS` when never configured). */
  before: SurchargeSettings;
  after: SurchargeSettings;
}

const RULE_KEYS = new Set(['brand', 'reason', 'percentageBps', 'fixed', 'max']);

/** Message of the field error of a rule with neither `percentageBps` nor `fixed`. */
export const FEE_MISSING_MESSAGE = 'give percentageBps, fixed or both';

function integerError(value: unknown, min: number, max: number): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value)) return 'must be an integer';
  if (value < min || value > max) return `must be between ${min} and ${max}`;
  return undefined;
}

/**
 * The field errors of one fee rule (an untrusted value from the CLI or the admin API). Fields are named
 * `${path}.brand`, `${path}.percentageBps`, …; an empty list means the rule is a valid `FeeRule`.
 */
export function feeRuleErrors(rule: unknown, path: string): FieldError[] {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
    return [{ field: path, message: 'must be an object' }];
  }
  const r = rule as Record<string, unknown>;
  const errors: FieldError[] = [];
  const at = (key: string) => (path ? `${path}.${key}` : key);
  for (const key of Object.keys(r)) {
    if (!RULE_KEYS.has(key)) errors.push({ field: at(key), message: 'is not a known field' });
  }
  if (!FEE_RULE_BRANDS.includes(r.brand as FeeRuleBrand)) {
    errors.push({ field: at('brand'), message: `must be one of ${FEE_RULE_BRANDS.join(', ')}` });
  }
  if (!SURCHARGE_RULE_REASONS.includes(r.reason as SurchargeRuleReason)) {
    errors.push({ field: at('reason'), message: `must be one of ${SURCHARGE_RULE_REASONS.join(', ')}` });
  }
  const limits = { percentageBps: [0, 10_000], fixed: [0, MAX_FEE_MINOR], max: [1, MAX_FEE_MINOR] } as const;
  for (const [key, [min, max]] of Object.entries(limits)) {
    if (r[key] === undefined) continue;
    const message = integerError(r[key], min, max);
    if (message) errors.push({ field: at(key), message });
  }
  if (r.percentageBps === undefined && r.fixed === undefined) {
    errors.push({ field: at('percentageBps'), message: FEE_MISSING_MESSAGE });
  }
  // A cap below the fixed part would make every fee the cap: a mistake in the rule, not a fee anyone meant.
  if (errors.length === 0 && typeof r.fixed === 'number' && typeof r.max === 'number' && r.max < r.fixed) {
    errors.push({ field: at('max'), message: `must be at least fixed (${r.fixed})` });
  }
  return errors;
}

/**
 * The field errors of a rule list for `SurchargeSettingsService.enable`: each rule valid (`feeRuleErrors`), at least
 * one rule, and at most one rule per (brand, reason), so that "the most specific rule wins" is never ambiguous.
 */
export function feeRulesErrors(rules: unknown, path = 'rules'): FieldError[] {
  if (!Array.isArray(rules)) return [{ field: path, message: 'must be a list of fee rules' }];
  if (rules.length === 0) return [{ field: path, message: 'give at least one fee rule' }];
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  rules.forEach((rule, i) => {
    const ruleErrors = feeRuleErrors(rule, `${path}.${i}`);
    errors.push(...ruleErrors);
    if (ruleErrors.length > 0) return;
    const { brand, reason } = rule as FeeRule;
    const first = seen.get(`${brand}|${reason}`);
    if (first === undefined) seen.set(`${brand}|${reason}`, i);
    else
      errors.push({
        field: `${path}.${i}`,
        message: `repeats brand ${brand} and reason ${reason} of ${path}.${first}`,
      });
  });
  return errors;
}

/** A copy of a valid rule holding only its known fields, in a fixed order (what is stored and audited). */
export function normalizeFeeRule(rule: FeeRule): FeeRule {
  return {
    brand: rule.brand,
    reason: rule.reason,
    ...(rule.percentageBps !== undefined && { percentageBps: rule.percentageBps }),
    ...(rule.fixed !== undefined && { fixed: rule.fixed }),
    ...(rule.max !== undefined && { max: rule.max }),
  };
}

/** The field errors of an audit actor: 1–100 characters, no control characters. */
export function actorErrors(actor: unknown, field = 'actor'): FieldError[] {
  if (typeof actor !== 'string' || actor.trim().length === 0) return [{ field, message: 'must be a non-empty name' }];
  if (actor.length > MAX_ACTOR_LENGTH) return [{ field, message: `must be at most ${MAX_ACTOR_LENGTH} characters` }];
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this refuses
  if (/[\u0000-\u001f\u007f]/.test(actor)) return [{ field, message: 'must not contain control characters' }];
  return [];
}
