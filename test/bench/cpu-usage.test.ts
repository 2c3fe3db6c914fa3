import { existsSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { postgresCpuUs, processCpu } from '../../bench/cpu-usage.js';
import { DIALECTS } from '../helpers/dialects.js';

const linux = existsSync('/proc/self/task');
/** The run tests PostgreSQL, and it is on this machine (its processes are in this /proc). */
const localPostgres =
  DIALECTS.includes('postgres') &&
  ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(inject('postgresUrl')).hostname);

/**
 * Keeps this thread busy until the process has used `ms` of CPU by getrusage's count (process.cpuUsage), an account
 * independent of /proc's; wall time would not do on a loaded machine, which may take the core away for most of it
 * (CI measured 70 ms of CPU in 300 ms of wall time). Gives up after 10 s of wall time.
 */
function spin(ms: number): void {
  const start = process.cpuUsage();
  const giveUp = performance.now() + 10_000;
  for (;;) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1_000 >= ms || performance.now() > giveUp) return;
  }
}

describe.runIf(linux)('bench CPU readings (/proc)', () => {
  it('counts the CPU the main thread burns, as main thread and as process', () => {
    const before = processCpu(process.pid);
    spin(300);
    const after = processCpu(process.pid);
    expect(before).toBeDefined();
    expect(after).toBeDefined();
    if (!before || !after) return;
    // 300 ms on the CPU, almost all of it this (main) thread's, read at 10 ms ticks.
    expect(after.mainUs - before.mainUs).toBeGreaterThanOrEqual(200_000);
    expect(after.allUs - before.allUs).toBeGreaterThanOrEqual(after.mainUs - before.mainUs);
    expect(after.allUs).toBeGreaterThanOrEqual(after.mainUs);
  });

  it('reads nothing for a process that does not exist', () => {
    expect(processCpu(2 ** 22 + 1)).toBeUndefined(); // above Linux's pid_max limit
  });

  // A PostgreSQL on this machine (the tests' own): a query's work shows in its processes' CPU.
  it.runIf(localPostgres)('counts the CPU a local PostgreSQL spends on a query', async () => {
    const client = new pg.Client({ connectionString: inject('postgresUrl') });
    await client.connect();
    try {
      const before = postgresCpuUs();
      expect(before).toBeDefined();
      await client.query('select count(*) from generate_series(1, 3000000) g where g % 7 = 0');
      const after = postgresCpuUs();
      expect((after ?? 0) - (before ?? 0)).toBeGreaterThanOrEqual(50_000);
    } finally {
      await client.end();
    }
  });
});
