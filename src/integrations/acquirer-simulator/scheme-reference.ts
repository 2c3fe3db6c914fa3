import { createHmac, randomInt } from 'node:crypto';
import type { CardBrand } from '../../domain/ports/bin-table.js';

/**
 * The simulated card networks' transaction ids (`schemeReferenceId` on the Paygate wire):
 * - Visa Transaction Identifier: 15 digits.
 * - Mastercard Trace ID: financial network code (3 characters, `MCC` for Mastercard credit) + Banknet reference
 *   number (6 alphanumeric characters) + Banknet date (MMDD), 13 characters.
 * A real network checks an MIT's reference against its records. The simulator has no shared records (it runs in
 * every Kassa node and forgets on restart), so each id carries a check part: an HMAC, under the simulated network's
 * own key, of the card number and the id's random part. "Valid" therefore means what it means at a network: issued by
 * that network, for that card.
 */
const NETWORK_KEY = 'kassa-simulated-card-networks/transaction-id/v1';
const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function mac(brand: CardBrand, pan: string, randomPart: string): Buffer {
  return createHmac('sha256', NETWORK_KEY).update(`${brand}|${pan}|${randomPart}`).digest();
}

function visaCheck(pan: string, randomPart: string): string {
  return String(mac('VISA', pan, randomPart).readUInt32BE(0) % 1_000_000).padStart(6, '0');
}

function mastercardCheck(pan: string, randomPart: string): string {
  const digest = mac('MASTERCARD', pan, randomPart);
  return [0, 1, 2].map((i) => ALPHANUMERIC[(digest[i] ?? 0) % 36]).join('');
}

/**
 * Issues a network transaction id for an approved authorization of `pan`, in the format of the card's network.
 * @param now the authorization's time (the Mastercard Banknet date, UTC).
 */
export function issueSchemeReferenceId(brand: CardBrand, pan: string, now: Date): string {
  if (brand === 'VISA') {
    const randomPart = String(randomInt(0, 1_000_000_000)).padStart(9, '0');
    return randomPart + visaCheck(pan, randomPart);
  }
  const banknetDate = String(now.getUTCMonth() + 1).padStart(2, '0') + String(now.getUTCDate()).padStart(2, '0');
  const randomPart = `MCC${[0, 1, 2].map(() => ALPHANUMERIC[randomInt(0, 36)]).join('')}${banknetDate}`;
  return `${randomPart.slice(0, 6)}${mastercardCheck(pan, randomPart)}${banknetDate}`;
}

/** Whether `reference` is a transaction id the simulated network of `brand` issued for `pan`. */
export function isValidSchemeReferenceId(brand: CardBrand, pan: string, reference: string): boolean {
  if (brand === 'VISA') {
    return /^\d{15}$/.test(reference) && visaCheck(pan, reference.slice(0, 9)) === reference.slice(9);
  }
  const match = /^(MCC[0-9A-Z]{3})([0-9A-Z]{3})(\d{4})$/.exec(reference);
  if (match === null) return false;
  const [, head = '', check = '', banknetDate = ''] = match;
  return mastercardCheck(pan, `${head}${banknetDate}`) === check;
}
