/**
 * Scale-up benchmark (KASSA_WORKERS): `kassa serve` as a child process on PostgreSQL with 1, then 2 (or
 * BENCH_WORKERS="1,2,4") worker processes, autocannon creating DIRECT payments (3-D Secure frictionless, AUTOMATIC
 * capture) over loopback HTTPS. Each run gets a fresh database. Bounded: BENCH_SECONDS per run (default 10). Prints the
 * figures and the machine's load average before each run (a shared machine skews them); asserts nothing.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:workers
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { luhnCheckDigit } from '../src/domain/payments/card-checks.js';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
const ADMIN_URL = process.env.BENCH_DATABASE_URL;
const KASSA_BIN = fileURLToPath(new URL('../bin/kassa.js', import.meta.url));

if (!ADMIN_URL?.startsWith('postgres')) {
  console.error('BENCH_DATABASE_URL=postgres://… is required: more than one worker needs PostgreSQL');
  process.exit(2);
}

function pan(scenario: string): string {
  const p = `40000000000${scenario}`;
  return p + luhnCheckDigit(p);
}

async function withDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const name = `kassa_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(ADMIN_URL as string);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

async function runOnce(workers: number, databaseUrl: string): Promise<autocannon.Result> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [KASSA_BIN, 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      KASSA_WORKERS: String(workers),
      KASSA_HOST: '127.0.0.1',
      KASSA_PORT: String(port),
      KASSA_DATA_DIR: mkdtempSync(join(tmpdir(), 'kassa-bench-')),
      KASSA_MAX_EVENT_LOOP_DELAY: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c;
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c;
  });
  const deadline = Date.now() + 60_000;
  while (!/Kassa listens on/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`kassa did not start:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const apiKey = out.match(/apiKey:\s+(\S+)/)?.[1];
  const authorization = `Basic ${Buffer.from(`demo:${apiKey}`).toString('base64')}`;
  let n = 0;
  try {
    return await autocannon({
      url: `https://127.0.0.1:${port}/api/v1/payments`,
      connections: CONNECTIONS,
      duration: DURATION_S,
      requests: [
        {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({
              transId: `bench-${workers}-${n++}`,
              amount: { value: 12_500, currency: 'DKK' },
              paymentMethods: {
                type: 'CARD',
                integrationType: 'DIRECT',
                card: { number: pan('1000'), expiryDate: '203012', securityCode: '123' },
              },
              browserInfo: { acceptHeaders: 'text/html', javaScriptEnabled: true, language: 'da', userAgent: 'bench' },
            }),
          }),
        },
      ],
    });
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

console.log(`\n# POST /api/v1/payments (DIRECT) on PostgreSQL, KASSA_WORKERS ${WORKERS.join(' vs ')}`);
console.log(`machine: ${availableParallelism()} cores; ${CONNECTIONS} connections, ${DURATION_S} s per run`);
for (const workers of WORKERS) {
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const r = await withDatabase((url) => runOnce(workers, url));
  console.log(
    `workers ${workers}: requests/s ${r.requests.average.toFixed(0)} (2xx ${r['2xx']} of ${r.requests.total}, ` +
      `non-2xx ${r.non2xx}, errors ${r.errors}) | latency ms p50 ${r.latency.p50} p99 ${r.latency.p99} | ` +
      `load average before (1/5/15 min) ${load}`,
  );
}
