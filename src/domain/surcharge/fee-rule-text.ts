import { type FieldError, validationError } from '../errors/error-catalogue.js';
import {
  FEE_MISSING_MESSAGE,
  type FeeRule,
  feeRuleErrors,
  normalizeFeeRule,
  type SurchargeAuditEntry,
  type SurchargeSettings,
} from './surcharge-settings.js';

const INTEGER_KEYS = new Set(['percentageBps', 'fixed', 'max']);
const KNOWN_KEYS = ['brand', 'reason', 'percentageBps', 'fixed', 'max'];

/**
 * Parses the CLI notation of a fee rule, `brand=VISA,reason=COMMERCIAL_CARD,percentageBps=180[,fixed=100][,max=500]`
 * (keys as in `FeeRule`, values in basis points and minor units). Brand and reason are case-insensitive.
 * @throws KassaError VALIDATION_FAILED whose fields are the offending `key=value` pairs (or the missing key).
 */
export function parseFeeRule(text: string): FeeRule {
  const raw: Record<string, unknown> = {};
  const pairs = new Map<string, string>();
  const badKeys = new Set<string>();
  const errors: FieldError[] = [];
  for (const part of text.split(',')) {
    const pair = part.trim();
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq).trim() : pair;
    const value = pair.slice(eq + 1).trim();
    let problem: string | undefined;
    if (eq <= 0) problem = 'must be key=value';
    else if (!KNOWN_KEYS.includes(key)) problem = `unknown key; use ${KNOWN_KEYS.join(', ')}`;
    else if (pairs.has(key)) problem = `${key} is given twice`;
    else if (INTEGER_KEYS.has(key) && !/^\d+$/.test(value))
      problem = 'must be a whole number (basis points or minor units)';
    if (problem) {
      errors.push({ field: pair || text, message: problem });
      badKeys.add(key);
      continue;
    }
    pairs.set(key, pair);
    raw[key] = INTEGER_KEYS.has(key) ? Number(value) : value.toUpperCase();
  }
  const numberRefused = [...INTEGER_KEYS].some((k) => badKeys.has(k));
  for (const e of feeRuleErrors(raw, '')) {
    if (badKeys.has(e.field) || (numberRefused && e.message === FEE_MISSING_MESSAGE)) continue;
    errors.push({ field: pairs.get(e.field) ?? e.field, message: e.message });
  }
  if (errors.length > 0) throw validationError(errors);
  return normalizeFeeRule(raw as unknown as FeeRule);
}

/** The CLI notation of a rule (inverse of `parseFeeRule`). */
export function formatFeeRule(rule: FeeRule): string {
  return Object.entries(normalizeFeeRule(rule))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** One line describing settings for people: `enabled: brand=VISA,reason=COMMERCIAL_CARD,percentageBps=180; …`. */
export function describeSurchargeSettings(settings: SurchargeSettings): string {
  const rules = settings.rules.length > 0 ? settings.rules.map(formatFeeRule).join('; ') : 'no fee rules';
  return `${settings.enabled ? 'enabled' : 'disabled'}: ${rules}`;
}

/** The audit log as text for people, oldest first, one change per block. */
export function describeSurchargeAudit(entries: readonly SurchargeAuditEntry[]): string {
  if (entries.length === 0) return 'no changes recorded';
  return entries
    .map(
      (e) =>
        `#${e.seq} ${e.at.toISOString()} ${e.action} by ${e.actor}\n` +
        `    before: ${describeSurchargeSettings(e.before)}\n    after:  ${describeSurchargeSettings(e.after)}`,
    )
    .join('\n');
}
