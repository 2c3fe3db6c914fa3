import { createHmac, hkdfSync } from 'node:crypto';
import { luhnCheckDigit, passesLuhn } from '../payments/card-checks.js';

/**
 * Pseudo card numbers (`paymentMethods.card.pseudoCardNumber`, spec/paygate-v2-wire.md §4): what a merchant keeps
 * and sends back instead of a stored card's number.
 *
 * Rule (docs/stored-credentials.md): 16 digits = `0` + 10 digits of HMAC-SHA256(tokenKey, merchantId ‖ 0x00 ‖ PAN)
 * + the card's last four digits + a check digit chosen so that the Luhn check FAILS.
 * - It cannot be taken for a real card: ISO/IEC 7812-1 gives leading digit 0 (major industry identifier 0) to
 *   ISO/TC 68 assignments, no card network issues card numbers in it, and every PAN of every network passes the
 *   Luhn check, which a pseudo card number never does. So a form, a BIN lookup or a PAN scanner that validates
 *   card numbers refuses it, and Kassa tells it from a PAN without a table lookup (`isPseudoCardNumber`).
 * - Same card at the same merchant → same token (deterministic under the deployment's token key).
 * - Useless at any other merchant: the merchant id is inside the HMAC, and the vault is keyed by
 *   (merchantId, pseudoCardNumber), so another merchant's token finds nothing.
 * - The last four digits stay readable, so a support desk and the cardholder recognise the card.
 */
export const PSEUDO_CARD_NUMBER_LENGTH = 16;

/** The key that derives pseudo card numbers: HKDF-SHA256 (RFC 5869) of the data key. Never rotated (tokens last). */
export function pseudoCardNumberKey(dataKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), 'kassa/pseudo-card-number/v1', 32));
}

/**
 * The pseudo card number of `pan` at `merchantId`.
 * @param tokenKey from pseudoCardNumberKey.
 * @param pan 12–19 digits.
 * @throws RangeError when `pan` is not 12–19 digits.
 */
export function pseudoCardNumber(tokenKey: Uint8Array, merchantId: string, pan: string): string {
  if (!/^\d{12,19}$/.test(pan)) throw new RangeError('pan must be 12 to 19 digits');
  const digest = createHmac('sha256', tokenKey).update(`${merchantId}\u0000${pan}`).digest();
  // 64 bits mod 10^10: the bias (2^64 is not a multiple of 10^10) is below 10^-9.
  const body = (digest.readBigUInt64BE(0) % 10_000_000_000n).toString().padStart(10, '0');
  const partial = `0${body}${pan.slice(-4)}`;
  const luhnDigit = Number(luhnCheckDigit(partial));
  return partial + String((luhnDigit + 1) % 10);
}

/** Whether `value` has the shape of a Kassa pseudo card number (leading 0, 16 digits, failing the Luhn check). */
export function isPseudoCardNumber(value: string): boolean {
  return /^0\d{15}$/.test(value) && !passesLuhn(value);
}
