import { describe, expect, it } from 'vitest';
import {
  cardFingerprint,
  detectBrand,
  isExpired,
  luhnCheckDigit,
  passesLuhn,
} from '../../../src/domain/payments/card-checks.js';
import { holdsCardNumber } from '../../../src/domain/payments/card-number-mask.js';

describe('card checks', () => {
  it.each([
    ['4000000000010001', true],
    ['4000000000010002', false],
    ['5100000000010009', passesLuhn('5100000000010009')],
    ['79927398713', true],
    ['79927398710', false],
  ])('Luhn(%s) is %s', (pan, ok) => {
    expect(passesLuhn(pan)).toBe(ok);
  });

  it('the check digit completes the DESIGN.md §6 example PAN 4000000000010001', () => {
    expect(luhnCheckDigit('400000000001000')).toBe('1');
  });

  it.each([
    ['202611', '2026-11-30T23:59:59Z', false],
    ['202611', '2026-12-01T00:00:00Z', true],
    ['202612', '2026-11-21T00:00:00Z', false],
    ['202510', '2026-11-21T00:00:00Z', true],
  ])('a card expiring %s is expired at %s: %s (end of the expiry month, UTC)', (expiry, at, expired) => {
    expect(isExpired(expiry, new Date(at))).toBe(expired);
  });

  it.each([
    ['4000000000010001', 'VISA'],
    ['5100000000010009', 'MASTERCARD'],
    ['2221000000000009', 'MASTERCARD'],
    ['6011000990139424', undefined],
    ['378282246310005', undefined],
  ])('brand of %s is %s', (pan, brand) => {
    expect(detectBrand(pan)).toBe(brand);
  });

  it('the fingerprint is a keyed hash: stable per key, different across keys, never the PAN', () => {
    const a = cardFingerprint('4000000000010001', 'k1');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(cardFingerprint('4000000000010001', 'k1')).toBe(a);
    expect(cardFingerprint('4000000000010001', 'k2')).not.toBe(a);
  });
});

describe('holdsCardNumber: a name that holds a card number', () => {
  it.each([
    '4000000000010001',
    '4000 0000 0001 0001',
    '4000-0000-0001-0001',
    '4000.0000.0001.0001',
    'Ann Lee 4000 0000 0001 0001',
    '4000 0000 0001 0001 123', // the number, then the security code
    '4000000000010001 1230', // then the expiry
    'Flat 12 4000 0000 0001 0001',
    '4000/0000/0001/0001',
    '4000_0000_0001_0001',
    '4000\u00a00000\u00a00001\u00a00001',
    '5100 0000 0001 0009'.replace(/\d$/, String(luhnCheckDigit('510000000001000'))),
  ])('%s: yes', (name) => {
    expect(holdsCardNumber(name)).toBe(true);
  });

  it.each(['Ann Lee', 'Ann Lee 3rd', '4000 0000 0001 0002', 'ACME 2026-11-29', '1234 5678', 'Ann 123456789012'])(
    '%s: no (no digits, too few, or Luhn fails)',
    (name) => {
      expect(holdsCardNumber(name)).toBe(false);
    },
  );
});
