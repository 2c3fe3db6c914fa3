import { describe, expect, it, vi } from 'vitest';
import { newHexId } from '../../../src/domain/ports/id-generator.js';
import { RandomPool, randomPool } from '../../../src/domain/ports/random-pool.js';
import { cryptoIds } from '../../../src/services.js';

describe('RandomPool', () => {
  it('hands every byte out once: consecutive draws, across refills, never repeat one another', () => {
    const pool = new RandomPool(64);
    // 16-byte draws from a 64-byte pool: four a fill, 400 draws are 100 refills; 128-bit values never collide.
    const draws = Array.from({ length: 400 }, () => pool.bytes(16).toString('hex'));
    expect(new Set(draws).size).toBe(draws.length);
    for (const d of draws) expect(d).toMatch(/^[0-9a-f]{32}$/);
  });

  it('refills when a draw does not fit in what is left, instead of handing out a short or reused slice', () => {
    const pool = new RandomPool(16);
    const first = pool.bytes(10);
    const second = pool.bytes(10); // 6 bytes were left: a new fill
    expect(second).toHaveLength(10);
    expect(second.equals(first)).toBe(false);
  });

  it('returns copies: changing a draw changes nothing another caller gets', () => {
    const pool = new RandomPool(32);
    const a = pool.bytes(8);
    a.fill(0);
    const b = pool.bytes(8);
    expect(b.equals(Buffer.alloc(8))).toBe(false);
  });

  it('gives unsigned 32-bit integers', () => {
    const pool = new RandomPool(64);
    const values = Array.from({ length: 1000 }, () => pool.nextUint32());
    for (const v of values) {
      expect(Number.isInteger(v)).toBe(true);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(2 ** 32);
    }
    expect(new Set(values).size).toBeGreaterThan(990);
  });

  it.each([-1, 1.5, 65, Number.NaN])('refuses a draw of %s bytes with a RangeError', (n) => {
    expect(() => new RandomPool(64).bytes(n)).toThrow(RangeError);
  });

  // Why (issue 12): the uuidv7 package's own source calls crypto.getRandomValues for every 8 words, ~5 µs a call.
  it('is the random source of the time-ordered ids (xIds, sessionIds, message ids)', () => {
    const spy = vi.spyOn(randomPool, 'nextUint32');
    try {
      newHexId(cryptoIds);
      expect(spy).toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});
