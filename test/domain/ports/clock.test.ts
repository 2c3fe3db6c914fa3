import { describe, expect, it, vi } from 'vitest';
import { ISO_TIME_CACHE_SIZE, isoTime, parseIsoTime } from '../../../src/domain/ports/clock.js';

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

describe('parseIsoTime', () => {
  it('parses a stored instant, and isoTime then answers its text without formatting it', () => {
    const text = '2026-11-26T14:16:18.099Z';
    const date = parseIsoTime(text);
    expect(date.getTime()).toBe(Date.UTC(2026, 10, 26, 14, 16, 18, 99));
    const toISOString = vi.spyOn(Date.prototype, 'toISOString');
    try {
      expect(isoTime(new Date(date.getTime()))).toBe(text);
      expect(toISOString).not.toHaveBeenCalled();
    } finally {
      toISOString.mockRestore();
    }
  });

  it.each([
    ['a day past the end of its month', '2031-02-30T00:00:00.000Z', '2031-03-02T00:00:00.000Z'],
    ['hour 24', '2031-11-26T24:00:00.000Z', '2031-11-27T00:00:00.000Z'],
    ['an offset', '2031-11-26T10:00:00.000+01:00', '2031-11-26T09:00:00.000Z'],
    ['no milliseconds', '2031-11-26T10:00:01Z', '2031-11-26T10:00:01.000Z'],
    ['a date alone', '2031-11-25', '2031-11-25T00:00:00.000Z'],
  ])('parses %s as new Date does, and does not keep its text', (_name, text, iso) => {
    const date = parseIsoTime(text);
    expect(date.getTime()).toBe(new Date(text).getTime());
    expect(isoTime(new Date(date.getTime()))).toBe(iso);
  });

  it('gives an invalid Date for text that is no instant', () => {
    expect(Number.isNaN(parseIsoTime('not a time').getTime())).toBe(true);
  });
});
