import { createHmac } from 'node:crypto';
import creditCardType from 'credit-card-type';
import type { CardBrand } from '../ports/bin-table.js';

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
