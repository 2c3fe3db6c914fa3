import { describe, expect, it } from 'vitest';
import { MAX_AMOUNT_MINOR, wholeMinorUnits } from '../../src/contracts/primitives.js';

describe('wholeMinorUnits: a computed amount is the whole number it stands for', () => {
  it.each([
    [19.99 * 100, 1999], // 1998.9999999999998, as PHP's json_encode writes it
    [0.29 * 100, 29], // 28.999999999999996
    [1.1 * 100, 110], // 110.00000000000001
    [(0.1 + 0.2) * 100, 30],
    [123456.78 * 100, 12345678],
    [99999999.99 * 100, 9999999999],
    [MAX_AMOUNT_MINOR, MAX_AMOUNT_MINOR],
    [1999, 1999],
  ])('%d is %d', (value, whole) => {
    expect(wholeMinorUnits(value)).toBe(whole);
  });

  it.each([12.5, 1998.5, 1999.01, 0.001, 1999.00001, Number.NaN, Number.POSITIVE_INFINITY])(
    '%d is a fraction of a minor unit (or no number): undefined',
    (value) => {
      expect(wholeMinorUnits(value)).toBeUndefined();
    },
  );
});
