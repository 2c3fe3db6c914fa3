import { describe, expect, it } from 'vitest';
import {
  isDeliveredStatus,
  MAX_ATTEMPTS,
  nextAttemptAt,
  RETRY_DELAYS_MS,
} from '../../../src/domain/notifications/retry-schedule.js';

const T0 = new Date('2026-11-21T10:00:00.000Z');
const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

describe('retry schedule (DESIGN.md §5)', () => {
  it('is immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: about 28 h in all', () => {
    expect(RETRY_DELAYS_MS).toEqual([0, 5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H]);
    expect(MAX_ATTEMPTS).toBe(8);
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total / H).toBeCloseTo(27.6, 1);
  });

  it.each([
    [1, 5 * S],
    [2, 5 * MIN],
    [3, 30 * MIN],
    [4, 2 * H],
    [5, 5 * H],
    [6, 10 * H],
    [7, 10 * H],
  ])('after %i failed attempts the next comes %i ms later, within ±10 %% jitter', (made, delay) => {
    const at = (r: number) => (nextAttemptAt(made, T0, () => r)?.getTime() ?? Number.NaN) - T0.getTime();
    expect(at(0.5)).toBe(delay);
    expect(at(0)).toBe(Math.round(delay * 0.9));
    expect(at(0.999999)).toBeLessThanOrEqual(Math.round(delay * 1.1));
    expect(at(0.999999)).toBeGreaterThan(delay);
  });

  it('after the 8th failed attempt there is no next attempt: the notification is FAILED', () => {
    expect(nextAttemptAt(8, T0, () => 0.5)).toBeUndefined();
    expect(nextAttemptAt(9, T0, () => 0.5)).toBeUndefined();
  });

  it.each([
    [200, true],
    [204, true],
    [299, true],
    [301, false],
    [400, false],
    [500, false],
    [199, false],
  ])('HTTP %i counts as delivered: %s', (status, delivered) => {
    expect(isDeliveredStatus(status)).toBe(delivered);
  });
});
