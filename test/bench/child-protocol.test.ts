import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHistogram } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { takeDurationFigures, timeAnswers } from '../../bench/child-protocol.js';

describe('bench child protocol: duration figures', () => {
  it('gives count, p50, p99 and max in ms of the durations (ns) recorded since the previous call, then empties them', () => {
    const durations = createHistogram();
    for (let i = 0; i < 98; i++) durations.record(1_000_000); // 1 ms
    durations.record(20_000_000);
    durations.record(30_000_000);
    const figures = takeDurationFigures(durations);
    expect(figures?.count).toBe(100);
    expect(figures?.p50Ms).toBeCloseTo(1, 1);
    expect(figures?.p99Ms).toBeCloseTo(20, 0);
    expect(figures?.maxMs).toBeCloseTo(30, 0);
    expect(takeDurationFigures(durations)).toBeUndefined();
    durations.record(2_000_000);
    expect(takeDurationFigures(durations)).toMatchObject({ count: 1, p50Ms: 2, p99Ms: 2, maxMs: 2 });
  });
});

describe('bench child protocol: answers timed inside the server', () => {
  it('times each answer from its parsed request to its finished response, the handler included', async () => {
    const server = createServer((request, response) => {
      const delay = request.url === '/slow' ? 60 : 0;
      void sleep(delay).then(() => response.end('{}'));
    });
    const answers = timeAnswers(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const path of ['/slow', ...Array.from({ length: 9 }, () => '/fast')]) await (await fetch(url + path)).text();
      const figures = takeDurationFigures(answers);
      expect(figures?.count).toBe(10);
      expect(figures?.maxMs).toBeGreaterThanOrEqual(59);
      expect(figures?.p50Ms).toBeLessThan(50);
      expect(takeDurationFigures(answers)).toBeUndefined();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
