/**
 * In-process DIRECT payment load on SQLite, with the group commit's figures: `npm run bench:group-commit`.
 *
 * Builds Kassa (buildApp, as `kassa serve` does) on a SQLite database and creates BENCH_PAYMENTS payments (5,000) through
 * `app.inject`, BENCH_CONCURRENCY (32) at a time, three rounds after a warm-up. No HTTP client shares the two cores, so
 * the figures move less than `npm run bench`'s; TLS and HTTP parsing are left out. Per round it prints payments/s, the
 * event loop's utilization and active µs per payment (idle time under full load = requests waiting on the writer), the
 * units per COMMIT and the COMMITs' p50 and p99 durations (ms: the writer's WAL write and fsync), and what the process
 * wrote and read (`/proc/self/io`: `wchar` per COMMIT, block-layer bytes written and read per payment; reads show
 * index pages the OS page cache no longer held).
 * BENCH_DATA_DIR reuses a data directory (one filled by bench/preload.ts, say); by default a temporary one, removed after.
 * Asserts nothing. Linux only (`/proc/self/io`). The heap grows through a run: `app.inject` keeps ~10 KB per request on
 * Node 20 (so does a bare Fastify app, 9.5 KB; not over real HTTP), so later rounds pay somewhat more for GC.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import type { GroupCommitStats } from '../src/storage/sqlite-group-commit.js';
import { takeDurationFigures } from './child-protocol.js';
import { benchMerchantAuthorization, directPaymentBody } from './workload.js';

const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 5_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const ownDir = process.env.BENCH_DATA_DIR === undefined;
const dataDir = process.env.BENCH_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'kassa-gc-bench-'));
chmodSync(dataDir, 0o700);

/** The process's I/O counters (proc(5): wchar = bytes passed to write calls, write_bytes = bytes sent to storage). */
function io(): { wchar: number; write_bytes: number; read_bytes: number } {
  const fields = Object.fromEntries(
    readFileSync('/proc/self/io', 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(': ') as [string, string])
      .map(([k, v]) => [k, Number(v)]),
  );
  return { wchar: fields.wchar ?? 0, write_bytes: fields.write_bytes ?? 0, read_bytes: fields.read_bytes ?? 0 };
}

const kassa = await buildApp(
  loadConfig({ ...process.env, KASSA_DATA_DIR: dataDir, LOG_LEVEL: 'warn', KASSA_MAX_EVENT_LOOP_DELAY: '0' }),
);
const groupCommit = kassa.db.groupCommit;
if (groupCommit === undefined)
  throw new Error('bench:group-commit measures the SQLite group commit: unset DATABASE_URL');
const stats: GroupCommitStats = groupCommit;
await kassa.app.ready();
const authorization = await benchMerchantAuthorization(kassa.services.merchants);

let sent = 0;
async function pay(): Promise<void> {
  const response = await kassa.app.inject({
    method: 'POST',
    url: '/api/v1/payments',
    headers: { authorization, 'content-type': 'application/json' },
    payload: directPaymentBody(`gc-${process.pid}-${sent}`),
  });
  if (response.statusCode !== 201) throw new Error(`HTTP ${response.statusCode}: ${response.body}`);
}

async function round(payments: number): Promise<Record<string, number>> {
  let started = 0;
  const io0 = io();
  const commits0 = stats.commits;
  const units0 = stats.units;
  takeDurationFigures(stats.commitDurations); // the round's COMMITs only
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (started < payments) {
        started++;
        sent++;
        await pay();
      }
    }),
  );
  const ms = performance.now() - t0;
  const elu = performance.eventLoopUtilization(elu0);
  const io1 = io();
  const commits = stats.commits - commits0;
  const durations = takeDurationFigures(stats.commitDurations);
  const round1 = (x: number) => Math.round(x * 10) / 10;
  return {
    paymentsPerSecond: Math.round((payments / ms) * 1000),
    eventLoopUtilization: Math.round(elu.utilization * 100) / 100,
    activeMicrosecondsPerPayment: Math.round((elu.active * 1000) / payments),
    unitsPerCommit: round1((stats.units - units0) / commits),
    commitP50Ms: durations?.p50Ms ?? 0,
    commitP99Ms: durations?.p99Ms ?? 0,
    writeCallKbPerCommit: Math.round((io1.wchar - io0.wchar) / commits / 1024),
    storageKbPerPayment: round1((io1.write_bytes - io0.write_bytes) / payments / 1024),
    storageReadKbPerPayment: round1((io1.read_bytes - io0.read_bytes) / payments / 1024),
  };
}

console.log(`# ${PAYMENTS} DIRECT payments per round, ${CONCURRENCY} at a time, SQLite in ${dataDir}`);
await round(Math.min(1_000, PAYMENTS));
for (let i = 0; i < 3; i++) console.log(JSON.stringify(await round(PAYMENTS)));
await kassa.close();
if (ownDir) rmSync(dataDir, { recursive: true, force: true });
