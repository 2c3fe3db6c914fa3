import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isPseudoCardNumber,
  pseudoCardNumber,
  pseudoCardNumberKey,
} from '../../../src/domain/cards/pseudo-card-number.js';
import { detectBrand, passesLuhn } from '../../../src/domain/payments/card-checks.js';
import { testPan } from '../../helpers/cards.js';

const key = pseudoCardNumberKey('test-data-key-test-data-key-0001');
const pan = testPan('40000000', '1000');

describe('pseudo card numbers', () => {
  it('are 16 digits, start with 0, keep the last four digits and fail the Luhn check', () => {
    const token = pseudoCardNumber(key, 'shop-a', pan);
    expect(token).toMatch(/^0\d{15}$/);
    expect(token.slice(11, 15)).toBe(pan.slice(-4));
    expect(passesLuhn(token)).toBe(false);
    expect(isPseudoCardNumber(token)).toBe(true);
  });

  // Guards security: a token must never pass for a card number of a real range.
  it('never pass as a PAN: any card, any merchant → Luhn fails, no brand detected, not a PAN shape', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9]\d{11,18}$/), fc.string({ minLength: 1, maxLength: 64 }), (p, merchant) => {
        const token = pseudoCardNumber(key, merchant, p);
        return !passesLuhn(token) && detectBrand(token) === undefined && isPseudoCardNumber(token);
      }),
      { numRuns: 2000 },
    );
  });

  it('the same card at the same merchant gets the same token; another merchant gets another', () => {
    expect(pseudoCardNumber(key, 'shop-a', pan)).toBe(pseudoCardNumber(key, 'shop-a', pan));
    expect(pseudoCardNumber(key, 'shop-b', pan)).not.toBe(pseudoCardNumber(key, 'shop-a', pan));
  });

  it('another deployment (another data key) derives other tokens', () => {
    const other = pseudoCardNumberKey('another-deployment-data-key-0002');
    expect(pseudoCardNumber(other, 'shop-a', pan)).not.toBe(pseudoCardNumber(key, 'shop-a', pan));
  });

  it('real test card numbers are not taken for pseudo card numbers', () => {
    expect(isPseudoCardNumber(pan)).toBe(false);
    expect(isPseudoCardNumber(testPan('51000000', '1000'))).toBe(false);
  });

  it('refuses a PAN that is not 12–19 digits', () => {
    expect(() => pseudoCardNumber(key, 'shop-a', '4000')).toThrow(RangeError);
  });
});
