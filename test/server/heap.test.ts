import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { limitHeapGrowth } from '../../src/server/heap.js';

const CHURN = join(import.meta.dirname, 'fixtures', 'heap-churn.ts');

async function peakHeapMb(percent: number): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHURN, String(percent)]);
  return (JSON.parse(stdout) as { peakHeapMb: number }).peakHeapMb;
}

describe('limitHeapGrowth (issue 12: peak RSS)', () => {
  it('keeps the heap of a churning program near its live data, where V8 alone may let it grow to several times that', async () => {
    // V8's own factor (percent 0) depends on how fast the collector runs against the program: near 4 on an idle
    // machine, lower when the machine is busy (measured here: 238 MB idle, 125 MB beside three busy processes), so
    // the comparison is with 300 %, the factor of 4 V8 picks on an idle machine (~239 MB, busy or not).
    const loose = await peakHeapMb(300);
    const limited = await peakHeapMb(50);
    // Measured here: about 120 MB at 50 %, busy or not (the fixture does a fixed amount of work).
    expect(limited).toBeLessThan(loose * 0.7);
  }, 30_000);

  it('refuses a percent outside 0–300', () => {
    expect(() => limitHeapGrowth(-1)).toThrow(RangeError);
    expect(() => limitHeapGrowth(301)).toThrow(/0 to 300/);
    expect(() => limitHeapGrowth(1.5)).toThrow(RangeError);
  });
});
