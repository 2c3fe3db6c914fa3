/**
 * `npm run bench:instructions [-- --what direct,lookup,by-trans-id,session] [-- --db sqlite|postgres] [-- --preload N]
 * [-- --requests N] [-- --warmup N] [-- --dist DIR]`: the user-space instructions a Kassa server executes per request,
 * counted by valgrind's callgrind. For changes too small for `npm run bench` to tell apart: on this shared 2-core
 * machine one phase's main-thread CPU per answer drifts by ±10–30 % between runs, while these counts repeat within a
 * few per cent (one build's lookup: 629–672k main-thread instructions in seven runs; V8 compiles on its own threads,
 * so its tiering is not deterministic; issue 12, session 12). They count no kernel time (socket writes, fsync) and no
 * waiting, and an instruction is not a unit of time: read them as "less work" or "more work", and confirm with
 * `npm run bench`.
 *
 * For each of `--what` (DIRECT payment creation, GET getByPayId; GET getByTransId `by-trans-id` and a hosted payment
 * page session's creation `session`, run only when asked), a fresh server (bench/kassa-server.ts, compiled) on a new
 * database (SQLite in a new data directory; with `--db postgres`, a new database on BENCH_POSTGRES_URL's server,
 * bench/postgres-database.ts, dropped afterwards) runs under
 * `valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes`; this process sends `--warmup` requests (V8
 * tiers the hot path up meanwhile), switches instrumentation on with `callgrind_control -i on`, sends `--requests`
 * more over 8 keep-alive connections, dumps the counters and prints them per request: the main thread (the event
 * loop), all threads, and each other thread above 1 % (the SQLite writer and checkpointer threads, V8's GC and
 * compiler helpers). On PostgreSQL only Kassa's process is counted, not the database server's.
 *
 * `--preload N`: before that server starts, a first one (without valgrind) creates a payment, and bench/preload.ts
 * copies it N times into that kind's database (~2 minutes a million on SQLite), as `npm run bench -- --preload N`
 * does: the way to see whether a request costs more instructions on a large database (issue 12: lookups measured
 * slower after a 1,000,000-payment preload; session 24 counted the same main-thread instructions, docs/decisions.md).
 *
 * `--dist DIR`: a compiled tree to measure instead of compiling this one (e.g. an older commit's `dist-bench/`, built
 * with `node --import tsx scripts/build.ts --project tsconfig.bench.json --src dist-bench/src` in its checkout): the
 * way to compare two versions. `--keep DIR`: copies callgrind's output files there (`<what>-callgrind.out…`, one per
 * thread), for `callgrind_annotate`. Needs valgrind (`apt-get install -y valgrind`); ~1 min for 2,000 lookups.
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { readCallgrindDump } from './callgrind.js';
import type { ChildMessage } from './child-protocol.js';
import { compileBenchChildren } from './compile.js';
import { postgresDatabase } from './postgres-database.js';
import { type PreloadTarget, preload } from './preload.js';
import { createPayments, directPaymentBody, LOOKUP_PAYMENTS, sessionBody } from './workload.js';

const CONNECTIONS = 8;
const { values: args } = parseArgs({
  options: {
    what: { type: 'string', default: 'direct,lookup' },
    requests: { type: 'string' },
    warmup: { type: 'string' },
    dist: { type: 'string' },
    keep: { type: 'string' },
    db: { type: 'string', default: 'sqlite' },
    preload: { type: 'string', default: '0' },
  },
});
const DB = String(args.db);
if (DB !== 'sqlite' && DB !== 'postgres') throw new Error(`--db: sqlite or postgres, not ${DB}`);
const PRELOAD = Number(args.preload);
if (!Number.isInteger(PRELOAD) || PRELOAD < 0) throw new Error('--preload N: N must be a whole number');
const KINDS = ['direct', 'lookup', 'by-trans-id', 'session'] as const;
type What = (typeof KINDS)[number];
/** What each kind's line names. */
const LABEL: Record<What, string> = {
  direct: 'POST /api/v1/payments (DIRECT)',
  lookup: 'GET getByPayId',
  'by-trans-id': 'GET getByTransId',
  session: 'POST /api/v1/payments/sessions',
};
const WHAT = String(args.what).split(',') as What[];
for (const w of WHAT) if (!KINDS.includes(w)) throw new Error(`--what: ${KINDS.join(', ')}, not ${w}`);

const dist = args.dist ?? compileBenchChildren();

/** Sends `count` requests over CONNECTIONS connections; a non-2xx answer throws. */
async function send(
  count: number,
  next: () => { method: 'GET' | 'POST'; path: string; body?: string },
  ready: { url: string; authorization: string },
  dispatcher: Agent,
): Promise<void> {
  let left = count;
  const worker = async () => {
    while (left-- > 0) {
      const r = next();
      const answer = await request(`${ready.url}${r.path}`, {
        method: r.method,
        body: r.body,
        headers: { authorization: ready.authorization, 'content-type': 'application/json' },
        dispatcher,
      });
      const text = await answer.body.text();
      if (answer.statusCode >= 300) throw new Error(`${r.method} ${r.path}: HTTP ${answer.statusCode} ${text}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

type Ready = { url: string; authorization: string; payId: string };

/** Forks the compiled bench server, through `valgrind` when `valgrindArgs` are given, and waits for its `ready`. */
async function startServer(
  env: Record<string, string>,
  valgrindArgs?: string[],
): Promise<{ child: ChildProcess; ready: Ready; stop(): Promise<void> }> {
  const child = fork(join(dist, 'bench', 'kassa-server.js'), [], {
    ...(valgrindArgs ? { execPath: 'valgrind', execArgv: [...valgrindArgs, process.execPath] } : {}),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.connected) child.send({ cmd: 'stop' });
    else child.kill();
    await exited;
  };
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.on('message', (m: ChildMessage) => {
        if ('ready' in m) resolve(m.ready as Ready);
      });
      child.once('exit', (code) => reject(new Error(`the server exited (${code}) before it was ready`)));
    });
    return { child, ready, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A new database for one measurement (SQLite in `dataDir`, or a new PostgreSQL database) and the server's env. */
async function newDatabase(dataDir: string) {
  if (DB === 'sqlite') {
    const file = join(dataDir, 'kassa.db');
    const target: PreloadTarget = { dialect: 'sqlite', file };
    return { target, env: { KASSA_DATA_DIR: dataDir, DATABASE_URL: `sqlite:${file}` }, drop: async () => {} };
  }
  const database = await postgresDatabase();
  if ('skipped' in database) throw new Error(database.skipped);
  const target: PreloadTarget = { dialect: 'postgres', url: database.url };
  return { target, env: { KASSA_DATA_DIR: dataDir, DATABASE_URL: database.url }, drop: database.drop };
}

async function measure(what: What): Promise<void> {
  const requests = Number(args.requests ?? (what === 'direct' ? 1_000 : 2_000));
  const warmup = Number(args.warmup ?? (what === 'direct' ? 2_000 : 3_000));
  const dataDir = mkdtempSync(join(tmpdir(), 'kassa-instructions-'));
  chmodSync(dataDir, 0o700); // Kassa refuses a data directory others can read
  const out = join(dataDir, 'callgrind.out');
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false }, connections: CONNECTIONS });
  let database: Awaited<ReturnType<typeof newDatabase>> | undefined;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    database = await newDatabase(dataDir);
    if (PRELOAD > 0) {
      const first = await startServer(database.env);
      await first.stop();
      await preload(database.target, PRELOAD, first.ready.payId, (done) =>
        process.stdout.write(`\r# preloading ${DB}: ${done} of ${PRELOAD} payments`),
      );
      process.stdout.write('\n');
    }
    server = await startServer(database.env, [
      '--tool=callgrind',
      '-q',
      '--instr-atstart=no',
      '--separate-threads=yes',
      `--callgrind-out-file=${out}`,
    ]);
    const { child, ready } = server;
    // Lookups read a different one of LOOKUP_PAYMENTS payments each request, as `npm run bench`'s lookup phase does
    // (one payId read over and over kept caches warm that merchants reading their payments do not).
    // getByTransId reads the same payments by the transIds they were created with (`instr-<pid>-<n>`).
    const payIds =
      what === 'direct' || what === 'session'
        ? []
        : await createPayments(ready.url, ready.authorization, LOOKUP_PAYMENTS, `instr-${process.pid}`, CONNECTIONS);
    let n = 0;
    const id = () => `instr-${process.pid}-${n++}`;
    const requestOf: Record<What, () => { method: 'GET' | 'POST'; path: string; body?: string }> = {
      direct: () => ({ method: 'POST', path: '/api/v1/payments', body: directPaymentBody(id()) }),
      session: () => ({ method: 'POST', path: '/api/v1/payments/sessions', body: sessionBody(id()) }),
      lookup: () => ({ method: 'GET', path: `/api/v1/payments/getByPayId/${payIds[n++ % payIds.length]}` }),
      'by-trans-id': () => ({
        method: 'GET',
        path: `/api/v1/payments/getByTransId/instr-${process.pid}-${n++ % payIds.length}`,
      }),
    };
    const next = requestOf[what];
    await send(warmup, next, ready, dispatcher);
    const pid = String(child.pid);
    execFileSync('callgrind_control', ['-i', 'on', pid], { stdio: 'ignore' });
    await send(requests, next, ready, dispatcher);
    execFileSync('callgrind_control', ['-d', pid], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['-i', 'off', pid], { stdio: 'ignore' });
    const threads = readCallgrindDump(dataDir, 'callgrind.out');
    const total = threads.reduce((sum, t) => sum + t.instructions, 0);
    const k = (i: number) => `${Math.round(i / requests / 100) / 10}k`;
    const main = threads.find((t) => t.thread === 1)?.instructions ?? 0;
    const others = threads
      .filter((t) => t.thread !== 1 && t.instructions > total / 100)
      .map((t) => `thread ${t.thread} ${k(t.instructions)}`);
    console.log(
      `${LABEL[what]}: ${requests} requests, ` +
        `instructions per request: main thread ${k(main)}, all threads ${k(total)} (${others.join(', ')})`,
    );
  } finally {
    await dispatcher.close();
    await server?.stop();
    await database?.drop();
    if (args.keep !== undefined) {
      mkdirSync(args.keep, { recursive: true });
      for (const f of readdirSync(dataDir)) {
        if (f.startsWith('callgrind.out')) copyFileSync(join(dataDir, f), join(args.keep, `${what}-${f}`));
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(`# user-space instructions per request (callgrind), ${DB}, ${PRELOAD} preloaded, ${dist}`);
for (const what of WHAT) await measure(what);
