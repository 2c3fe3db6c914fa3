import { createHmac } from 'node:crypto';
import creditCardType from 'credit-card-type';
import type { BinRecord, CardBrand } from '../ports/bin-table.js';
import type { CardSummary } from './payment.js';

/** Luhn (ISO/IEC 7812-1 Annex B) check of a digit string. */
export function passesLuhn(pan: string): boolean {
  let sum = 0;
  for (let i = 0; i < pan.length; i++) {
    let d = pan.charCodeAt(pan.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The Luhn check digit that completes `partial` (used to build test card numbers). */
export function luhnCheckDigit(partial: string): string {
  for (let d = 0; d <= 9; d++) if (passesLuhn(partial + d)) return String(d);
  throw new Error('unreachable');
}

/**
 * Whether a card with expiry `expiryDate` (YYYYMM) is still valid at `now`: cards expire at the end of their month.
 * Compared in UTC.
 */
export function isExpired(expiryDate: string, now: Date): boolean {
  const year = Number(expiryDate.slice(0, 4));
  const month = Number(expiryDate.slice(4, 6));
  const current = now.getUTCFullYear() * 12 + now.getUTCMonth(); // months since year 0, January = 0
  return year * 12 + (month - 1) < current;
}

/** The brand of a card number by its prefix (credit-card-type), or undefined when it is not Visa or Mastercard. */
export function detectBrand(pan: string): CardBrand | undefined {
  const types = creditCardType(pan).map((t) => t.type);
  if (types.includes('visa')) return 'VISA';
  if (types.includes('mastercard')) return 'MASTERCARD';
  return undefined;
}

/** HMAC-SHA256 of the PAN under the data key (hex): recognises a card again without storing it (DESIGN.md §8). */
export function cardFingerprint(pan: string, dataKey: string): string {
  return createHmac('sha256', dataKey).update(pan).digest('hex');
}

/**
 * What is wrong with an expiry date `YYYYMM` at `now`: INVALID (not six digits, or a month outside 01–12), EXPIRED
 * (past the end of its month, UTC), or undefined when it is fine.
 */
export function expiryProblem(expiryDate: string, now: Date): 'INVALID' | 'EXPIRED' | undefined {
  const month = Number(expiryDate.slice(4, 6));
  if (!/^\d{6}$/.test(expiryDate) || month < 1 || month > 12) return 'INVALID';
  return isExpired(expiryDate, now) ? 'EXPIRED' : undefined;
}

/**
 * What Kassa keeps of a card (DESIGN.md §8): BIN (6 or 8 digits, as the matching BIN table row), last four digits,
 * expiry, the BIN table's product, funding and issuer country, and a keyed fingerprint — never the number or CVC.
 */
export function summarizeCard(
  card: { number: string; expiryDate: string; cardholderName?: string },
  brand: CardBrand,
  bin: BinRecord | undefined,
  dataKey: string,
): CardSummary {
  return {
    brand,
    bin: bin?.bin.length === 6 ? card.number.slice(0, 6) : card.number.slice(0, 8),
    last4: card.number.slice(-4),
    expiryDate: card.expiryDate,
    product: bin?.product,
    funding: bin?.funding,
    issuerCountry: bin?.issuerCountry,
    cardholderName: card.cardholderName,
    fingerprint: cardFingerprint(card.number, dataKey),
  };
}
