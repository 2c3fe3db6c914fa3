import { describe, expect, it } from 'vitest';
import { isHexId, newHexId } from '../../../src/domain/ports/id-generator.js';
import { cryptoIds } from '../../../src/services.js';

describe('newHexId (xId, sessionId, message ids)', () => {
  it('is a version 7 UUID without dashes: its first 48 bits are the creation time in Unix milliseconds', () => {
    const before = Date.now();
    const id = newHexId(cryptoIds);
    const after = Date.now();
    expect(isHexId(id)).toBe(true);
    expect(id[12]).toBe('7'); // RFC 9562 §5.7: version 7
    expect('89ab').toContain(id[16]); // RFC 9562 §4.1: variant 10xx
    const ms = Number.parseInt(id.slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });

  // Why (issue 12): ids made later sort later, so the database inserts them at the end of their indexes instead of
  // at random places, and a payment's writes touch the same few index pages however large the tables are.
  it('sorts in the order the ids were made, also within one millisecond', () => {
    const ids = Array.from({ length: 5000 }, () => newHexId(cryptoIds));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('leaves payIds random (version 4: DESIGN.md §4, threeDSServerTransID is the same UUID)', () => {
    expect(cryptoIds.uuid()[14]).toBe('4');
  });
});
