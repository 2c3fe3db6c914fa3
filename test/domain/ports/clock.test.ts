import { describe, expect, it } from 'vitest';
import { ISO_TIME_CACHE_SIZE, isoTime } from '../../../src/domain/ports/clock.js';

describe('isoTime', () => {
  it('is toISOString, for instants seen before and after the cache turns over', () => {
    const start = Date.UTC(2026, 10, 25, 3, 58, 58, 649);
    // Three times as many instants as it keeps, each asked twice, then the first ones again (evicted by then).
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < ISO_TIME_CACHE_SIZE * 3; i++) {
        const d = new Date(start + i * 7);
        expect(isoTime(d)).toBe(d.toISOString());
        expect(isoTime(new Date(d.getTime()))).toBe(d.toISOString());
      }
    }
    expect(isoTime(new Date(-1))).toBe('1969-12-31T23:59:59.999Z');
    expect(isoTime(new Date(Date.UTC(10_000, 0, 1)))).toBe('+010000-01-01T00:00:00.000Z');
  });

  it('throws RangeError for an invalid Date, as toISOString does', () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
