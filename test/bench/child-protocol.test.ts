import { createHistogram } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { takeCommitFigures } from '../../bench/child-protocol.js';

describe('bench child protocol: COMMIT figures', () => {
  it('gives count, p50, p99 and max in ms of the durations (ns) recorded since the previous call, then empties them', () => {
    const durations = createHistogram();
    for (let i = 0; i < 98; i++) durations.record(1_000_000); // 1 ms
    durations.record(20_000_000);
    durations.record(30_000_000);
    const figures = takeCommitFigures(durations);
    expect(figures?.commits).toBe(100);
    expect(figures?.p50Ms).toBeCloseTo(1, 1);
    expect(figures?.p99Ms).toBeCloseTo(20, 0);
    expect(figures?.maxMs).toBeCloseTo(30, 0);
    expect(takeCommitFigures(durations)).toBeUndefined();
    durations.record(2_000_000);
    expect(takeCommitFigures(durations)).toMatchObject({ commits: 1, p50Ms: 2, p99Ms: 2, maxMs: 2 });
  });
});
