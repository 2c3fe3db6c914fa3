/**
 * `npm run bench [-- --preload N] [-- --profile] [-- --only sqlite|postgres] [-- --phases direct,lookup,hosted,notifications]`:
 * one run, one process tree (`--phases` picks phases, e.g. to profile one alone; the baseline always runs).
 *
 * First compiles src/ and bench/ to JavaScript (tsconfig.bench.json → dist-bench/, scripts/build.ts): the servers run
 * compiled, as `npm start` runs Kassa, not through tsx (whose loader thread and transformed sources cost ~75 MB RSS).
 * Forks each server as a child process (so each has its own peak RSS and, with --profile, its own `--cpu-prof`
 * profile under bench/profiles/) and loads it from this process with autocannon over loopback HTTPS:
 * 1. the baseline: a bare Fastify HTTPS server (Kassa's TLS settings) answering a small JSON POST;
 * 2. per database (SQLite in a temp file; PostgreSQL in a database created for the run and dropped after it):
 *    DIRECT payment creation (frictionless 3-D Secure, AUTOMATIC capture, Basic auth), GET getByPayId (each request
 *    another of LOOKUP_PAYMENTS payments this process creates through the API first, as merchants read many), and HOSTED
 *    session creation; with `--preload N` the database is then filled with N payments and their operations and
 *    notifications (bench/preload.ts), the same phases run again on a fresh server, and once more on a new empty
 *    database, so that the preloaded rows are compared with empty ones measured before and after them;
 * 3. notification delivery (outbox → signed POST to a loopback receiver, bench/notifications.bench.ts).
 * The baseline runs first, again before each Kassa server's phases, and last: the machine is shared and its speed
 * drifts within a run (the baseline alone has measured 17,000 and 32,000 req/s minutes apart), so each row's ratio is
 * to the mean of the baselines measured just before and just after its server's phases.
 * Prints a table (req/s, p50, p99, peak RSS, ratio to the baseline; on Linux also the CPU each answer cost the server's
 * main thread, all its threads and, on PostgreSQL, the database server, and how busy the main thread was:
 * bench/cpu-usage.ts; the p50 and p99 of Kassa's answers timed inside the server, from the parsed request to the
 * response handed to the socket, beside the load generator's; on SQLite the number of the group commit's COMMITs in
 * the phase and their p50 and p99, the WAL write and fsync every request of a batch waits for; a lookup phase has a
 * few, the periodic sweeps' transactions)
 * and writes bench/results.json. Asserts nothing.
 *
 * Environment: BENCH_SECONDS (10 per phase), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (32), BENCH_POSTGRES_URL
 * (postgres://postgres@127.0.0.1:5432/postgres: where the run creates its database; unreachable → PostgreSQL rows
 * are skipped and say so).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config/config.js';
import { loadRuntimeSecrets } from '../src/config/data-dir.js';
import type { ChildAnswers, ChildMessage, ChildStats, DurationFigures } from './child-protocol.js';
import { compileBenchChildren } from './compile.js';
import { postgresCpuUs, processCpu } from './cpu-usage.js';
import { postgresDatabase } from './postgres-database.js';
import { type PreloadTarget, preload } from './preload.js';
import { checkTargets, SCENARIO } from './targets.js';
import { createPayments, directPaymentBody, LOOKUP_PAYMENTS, sessionBody } from './workload.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

const { values: args } = parseArgs({
  options: {
    preload: { type: 'string' },
    profile: { type: 'boolean', default: false },
    only: { type: 'string' },
    phases: { type: 'string', default: 'direct,lookup,hosted,notifications' },
  },
});
const PHASES = new Set(String(args.phases).split(','));
const BASELINE = 'baseline: bare Fastify HTTPS POST';
const PRELOAD = args.preload === undefined ? 0 : Number(args.preload);
if (!Number.isInteger(PRELOAD) || PRELOAD < 0) throw new Error('--preload N: N must be a whole number');

/** One line of the table. */
interface Row {
  scenario: string;
  dialect: string;
  /** Payments in the database before the phase (preloaded ones). */
  preloaded: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  peakRssMb: number;
  ratioToBaseline?: number;
  non2xx: number;
  errors: number;
  /** CPU of the server's main (event-loop) thread per 2xx answer, µs (bench/cpu-usage.ts; undefined off Linux). */
  mainCpuUs?: number;
  /** CPU of all the server's threads (event loop, SQLite writer and checkpointer, V8's GC helpers) per 2xx answer, µs. */
  processCpuUs?: number;
  /** The main thread's CPU time over the phase's wall time: near 1, the event loop is saturated. */
  mainBusy?: number;
  /** CPU of the local PostgreSQL server's processes per 2xx answer, µs (PostgreSQL rows only). */
  databaseCpuUs?: number;
  /**
   * Kassa rows: the phase's answers timed inside the server (bench/child-protocol.ts timeAnswers), ms. The load
   * generator's p99 minus this one is what the tail owes to reading the request, the loopback and the load generator.
   */
  serverLatency?: DurationFigures;
  /**
   * SQLite rows: the group commit's COMMITs during the phase (the writer thread's WAL write and fsync; every request
   * of a batch waits for it): how many, and their p50 and p99 durations, ms.
   */
  commits?: DurationFigures;
  note?: string;
}

// The servers measured run compiled JavaScript, as `npm start` runs Kassa.
const CHILDREN = join(compileBenchChildren(), 'bench');

const rows: Row[] = [];
const runDir = mkdtempSync(join(tmpdir(), 'kassa-bench-'));
const profileDir = join(HERE, 'profiles', new Date().toISOString().replaceAll(':', '-'));
const startedAt = new Date();
const loadBefore = loadavg();

// One certificate for every server of the run (Kassa generates it into its data dir).
const certConfig = loadConfig({ KASSA_DATA_DIR: join(runDir, 'tls') });
await loadRuntimeSecrets(certConfig);
const certFile = join(certConfig.dataDir, 'tls-cert.pem');
const keyFile = join(certConfig.dataDir, 'tls-key.pem');

interface Child {
  process: ChildProcess;
  ready: Record<string, unknown>;
  /** Peak RSS so far, memory now and, on SQLite, the COMMITs since the previous call. */
  stats(): Promise<ChildStats>;
  stop(): Promise<void>;
}

/** Forks a compiled bench child (`script` names its TypeScript source; child-protocol.ts) and waits for its `ready`. */
async function start(script: string, name: string, argv: string[] = [], env: Record<string, string> = {}) {
  const execArgv: string[] = [];
  if (args.profile) execArgv.push('--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`); // one file per thread
  const compiled = join(CHILDREN, script.replace(/\.ts$/, '.js'));
  const child = fork(compiled, argv, { execArgv, env: { ...process.env, ...env }, stdio: 'inherit' });
  const next = <K extends keyof ChildAnswers>(key: K) =>
    new Promise<ChildAnswers[K]>((resolve, reject) => {
      const onMessage = (m: ChildMessage) => {
        if (key in m) {
          child.off('message', onMessage);
          child.off('exit', onExit);
          resolve((m as Record<K, ChildAnswers[K]>)[key]);
        }
      };
      const onExit = (code: number | null) => reject(new Error(`${name} exited (${code}) before ${key}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ready = await next('ready');
  return {
    process: child,
    ready,
    stats: async () => {
      const s = next('stats');
      child.send({ cmd: 'stats' });
      return await s;
    },
    stop: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ cmd: 'stop' });
      await exited;
    },
  } satisfies Child;
}

/** What a phase sends: `path`, or, when `paths` is given, each of them in turn (one request each, round robin). */
type Load = {
  method: 'GET' | 'POST';
  path: string;
  paths?: readonly string[];
  body?: () => string;
  headers?: Record<string, string>;
};

let turn = 0;
/** The next of `paths`, round robin across all connections. */
const nextOf = (paths: readonly string[]): string => paths[turn++ % paths.length] ?? '';

async function load(url: string, l: Load, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: `${url}${l.path}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: l.method,
        headers: { ...(l.body && { 'content-type': 'application/json' }), ...l.headers },
        ...((l.body || l.paths) && {
          setupRequest: (req: autocannon.Request) => ({
            ...req,
            ...(l.body && { body: l.body() }),
            ...(l.paths && { path: nextOf(l.paths) }),
          }),
        }),
      },
    ],
  });
}

/** Warms the path up, measures it, and adds a row with the child's peak RSS so far. */
async function phase(child: Child, scenario: string, dialect: string, preloaded: number, l: Load): Promise<Row> {
  const url = String(child.ready.url);
  if (WARMUP_SECONDS > 0) await load(url, l, WARMUP_SECONDS);
  await child.stats(); // so that the COMMIT figures of the next answer cover the measured phase only
  const pid = child.process.pid ?? 0;
  const cpuBefore = processCpu(pid);
  const dbBefore = dialect === 'postgres' ? postgresCpuUs() : undefined;
  const r = await load(url, l, SECONDS);
  const cpuAfter = processCpu(pid);
  const dbAfter = dialect === 'postgres' ? postgresCpuUs() : undefined;
  const { maxRssKb, memory, answers, commits } = await child.stats();
  const answered = Math.max(1, r['2xx']);
  const perAnswer = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined ? undefined : Math.round((after - before) / answered);
  const row: Row = {
    scenario,
    dialect,
    preloaded,
    requestsPerSecond: Math.round(r['2xx'] / (r.duration || SECONDS)),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    peakRssMb: Math.round(maxRssKb / 1024),
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    mainCpuUs: perAnswer(cpuBefore?.mainUs, cpuAfter?.mainUs),
    processCpuUs: perAnswer(cpuBefore?.allUs, cpuAfter?.allUs),
    databaseCpuUs: perAnswer(dbBefore, dbAfter),
    ...(answers && { serverLatency: answers }),
    ...(commits && { commits }),
  };
  if (cpuBefore && cpuAfter) {
    row.mainBusy = Math.round(((cpuAfter.mainUs - cpuBefore.mainUs) / ((r.duration || SECONDS) * 1e6)) * 100) / 100;
  }
  rows.push(row);
  console.log(
    `  ${scenario} (${dialect}, ${preloaded} preloaded): ${row.requestsPerSecond} req/s, p99 ${row.p99Ms} ms` +
      `; now ${mb(memory.rss)} MB RSS: heap ${mb(memory.heapUsed)}/${mb(memory.heapTotal)}, ` +
      `external ${mb(memory.external)}, array buffers ${mb(memory.arrayBuffers)}`,
  );
  return row;
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

let transIds = 0;
const nextTransId = () => `bench-${process.pid}-${transIds++}`;

/**
 * Creation, lookup and hosted session creation against one Kassa server.
 * @param name the server's name (its profiles' folder with --profile).
 */
async function kassaPhases(
  dialect: 'sqlite' | 'postgres',
  env: Record<string, string>,
  preloaded: number,
  name: string,
) {
  if (!rows.at(-1)?.scenario.startsWith(BASELINE)) await baselinePhase(`${BASELINE} (again)`);
  const child = await start('kassa-server.ts', name, [], env);
  const authorization = String(child.ready.authorization);
  try {
    if (PHASES.has('direct'))
      await phase(child, SCENARIO.direct, dialect, preloaded, {
        method: 'POST',
        path: '/api/v1/payments',
        headers: { authorization },
        body: () => directPaymentBody(nextTransId()),
      });
    if (PHASES.has('lookup')) {
      const url = String(child.ready.url);
      const payIds = await createPayments(
        url,
        authorization,
        LOOKUP_PAYMENTS,
        `bench-lookup-${process.pid}-${preloaded}`,
      );
      await phase(child, SCENARIO.lookup, dialect, preloaded, {
        method: 'GET',
        path: `/api/v1/payments/getByPayId/${String(child.ready.payId)}`,
        paths: payIds.map((payId) => `/api/v1/payments/getByPayId/${payId}`),
        headers: { authorization },
      });
    }
    if (PHASES.has('hosted'))
      await phase(child, SCENARIO.hosted, dialect, preloaded, {
        method: 'POST',
        path: '/api/v1/payments/sessions',
        headers: { authorization },
        body: () => sessionBody(nextTransId()),
      });
  } finally {
    await child.stop();
  }
  return String(child.ready.payId);
}

/** A new, empty database for a Kassa server of `dialect` and the server's environment; `skipped` without PostgreSQL. */
async function newDatabase(
  dialect: 'sqlite' | 'postgres',
  name: string,
): Promise<{ target: PreloadTarget; env: Record<string, string>; drop(): Promise<void> } | { skipped: string }> {
  const dataDir = join(runDir, name);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 }); // Kassa refuses a data dir others can read
  const env = { KASSA_TLS_CERT: certFile, KASSA_TLS_KEY: keyFile, KASSA_DATA_DIR: dataDir };
  if (dialect === 'sqlite') {
    const file = join(dataDir, 'kassa.db');
    return { target: { dialect, file }, env: { ...env, DATABASE_URL: `sqlite:${file}` }, drop: async () => {} };
  }
  const database = await postgresDatabase();
  if ('skipped' in database) return database;
  return { target: { dialect, url: database.url }, env: { ...env, DATABASE_URL: database.url }, drop: database.drop };
}

/**
 * The Kassa phases on an empty database of `dialect`, and with --preload N on the same database once N payments are
 * in it, then on a new empty database again: the machine's speed drifts by tens of per cent within minutes (the
 * baseline alone has measured 16,000 and 23,000 req/s in one run), so the preloaded rows are compared with the mean
 * of the empty rows measured before and after them (bench/targets.ts), not with one measured minutes earlier.
 */
async function dialectRun(dialect: 'sqlite' | 'postgres') {
  const database = await newDatabase(dialect, dialect);
  if ('skipped' in database) {
    console.log(`  ${database.skipped}`);
    rows.push({
      scenario: 'PostgreSQL rows',
      dialect,
      preloaded: 0,
      requestsPerSecond: 0,
      p50Ms: 0,
      p99Ms: 0,
      peakRssMb: 0,
      non2xx: 0,
      errors: 0,
      note: database.skipped,
    });
    return;
  }
  try {
    const templatePayId = await kassaPhases(dialect, database.env, 0, `kassa-${dialect}-0`);
    if (PRELOAD > 0) {
      const t0 = Date.now();
      await preload(database.target, PRELOAD, templatePayId, (done) =>
        process.stdout.write(`\r  preloading ${dialect}: ${done} of ${PRELOAD} payments`),
      );
      const seconds = Math.round((Date.now() - t0) / 1000);
      console.log(`\n  preloaded ${PRELOAD} payments into ${dialect} in ${seconds} s`);
      preloadSeconds[dialect] = seconds;
      await kassaPhases(dialect, database.env, PRELOAD, `kassa-${dialect}-${PRELOAD}`);
      const again = await newDatabase(dialect, `${dialect}-again`);
      if ('skipped' in again) throw new Error(again.skipped);
      try {
        await kassaPhases(dialect, again.env, 0, `kassa-${dialect}-0-again`);
      } finally {
        await again.drop();
      }
    }
  } finally {
    await database.drop();
  }
}

const preloadSeconds: Record<string, number> = {};
console.log(
  `# Kassa benchmark: ${CONNECTIONS} connections, ${SECONDS} s per phase (+${WARMUP_SECONDS} s warm-up), ` +
    `Node ${process.version}, ${cpus().length} CPUs, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`,
);
async function baselinePhase(label: string): Promise<void> {
  const baseline = await start('baseline-server.ts', 'baseline', [certFile, keyFile]);
  try {
    await phase(baseline, label, 'none', 0, {
      method: 'POST',
      path: '/echo',
      body: () => JSON.stringify({ transId: nextTransId(), amount: { value: 12_500, currency: 'DKK' } }),
    });
  } finally {
    await baseline.stop();
  }
}

try {
  await baselinePhase(BASELINE);
  for (const dialect of ['sqlite', 'postgres'] as const) {
    if (args.only === undefined || args.only === dialect) await dialectRun(dialect);
  }
  for (const dialect of ['sqlite', 'postgres'] as const) {
    if ((args.only !== undefined && args.only !== dialect) || !PHASES.has('notifications')) continue;
    const database = dialect === 'postgres' ? await postgresDatabase() : undefined;
    if (database && 'skipped' in database) continue;
    const child = await start('notifications.bench.ts', `notifications-${dialect}`, [], {
      ...(database && { BENCH_DATABASE_URL: database.url }),
    });
    const f = child.ready as { eventsPerSecond: number; lagP50Ms: number; lagP99Ms: number };
    const { maxRssKb } = await child.stats();
    await child.stop();
    await database?.drop();
    rows.push({
      scenario: 'notification delivery (events/s; lag commit→delivery)',
      dialect,
      preloaded: 0,
      requestsPerSecond: f.eventsPerSecond,
      p50Ms: Math.round(f.lagP50Ms * 10) / 10,
      p99Ms: Math.round(f.lagP99Ms * 10) / 10,
      peakRssMb: Math.round(maxRssKb / 1024),
      non2xx: 0,
      errors: 0,
    });
  }
  // Measured again at the end: the machine may be shared; ratios use the mean of both.
  await baselinePhase(`${BASELINE} (again)`);
} finally {
  rmSync(runDir, { recursive: true, force: true });
}

const isBaseline = (r: Row) => r.scenario.startsWith(BASELINE);
/** The mean of the baselines measured nearest before and after row `i`. */
function bracketingBaseline(i: number): number {
  const before = rows.findLast((r, j) => j < i && isBaseline(r));
  const after = rows.find((r, j) => j > i && isBaseline(r));
  const near = [before, after].filter((r) => r !== undefined);
  return near.reduce((sum, r) => sum + r.requestsPerSecond, 0) / Math.max(1, near.length);
}
rows.forEach((r, i) => {
  const base = bracketingBaseline(i);
  if (base > 0 && r.requestsPerSecond > 0 && !isBaseline(r) && !r.scenario.startsWith('notification'))
    r.ratioToBaseline = r.requestsPerSecond / base;
});
const loadAfter = loadavg();

const header = [
  'scenario',
  'db',
  'preloaded',
  'req/s',
  'p50 ms',
  'p99 ms',
  'peak RSS MB',
  '× baseline',
  'non-2xx',
  'main µs/req',
  'main busy',
  'process µs/req',
  'db µs/req',
  'in server: p50/p99 ms',
  'COMMITs: p50/p99 ms',
];
const optional = (n: number | undefined) => (n === undefined ? '' : String(n));
const table = rows.map((r) => [
  r.scenario,
  r.dialect,
  String(r.preloaded),
  r.note ? 'skipped' : String(r.requestsPerSecond),
  String(r.p50Ms),
  String(r.p99Ms),
  String(r.peakRssMb),
  r.ratioToBaseline === undefined ? '' : r.ratioToBaseline.toFixed(3),
  String(r.non2xx + r.errors),
  optional(r.mainCpuUs),
  optional(r.mainBusy),
  optional(r.processCpuUs),
  optional(r.databaseCpuUs),
  r.serverLatency ? `${r.serverLatency.p50Ms} / ${r.serverLatency.p99Ms}` : '',
  r.commits ? `${r.commits.count}: ${r.commits.p50Ms} / ${r.commits.p99Ms}` : '',
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => (t[i] ?? '').length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
console.log(`\n${line(header)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${table.map(line).join('\n')}`);
console.log(
  `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`,
);
for (const r of rows) if (r.note) console.log(`note: ${r.note}`);
const targets = checkTargets(rows);
console.log('\nissue 12 targets in this run:');
for (const t of targets) {
  const verdict = t.met === undefined ? 'not measured' : t.met ? 'met' : 'NOT met';
  console.log(`  ${verdict.padEnd(12)} ${t.target}${t.figures ? `: ${t.figures}` : ''}`);
}

writeFileSync(
  join(HERE, 'results.json'),
  `${JSON.stringify(
    {
      startedAt: startedAt.toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadAfter,
      connections: CONNECTIONS,
      secondsPerPhase: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      preload: PRELOAD,
      preloadSeconds,
      rows,
      targets,
    },
    null,
    2,
  )}\n`,
);
console.log(`wrote ${join(HERE, 'results.json')}${args.profile ? `; CPU profiles in ${profileDir}` : ''}`);
