import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { kassaCliResult, type ServerProcess, startServerProcess } from '../helpers/cli.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { freePort } from '../helpers/test-kassa.js';

/** Process ids of the direct children of `pid` (the cluster's workers). */
function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there is no child
  }
}

describe('KASSA_WORKERS with SQLite', () => {
  it('refuses more than one worker, saying SQLite has one writer', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kassa-workers-'));
    const result = await kassaCliResult(['serve'], { KASSA_WORKERS: '2', KASSA_DATA_DIR: dataDir, DATABASE_URL: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/KASSA_WORKERS: 2 workers need PostgreSQL/);
    expect(result.stderr).toMatch(/SQLite allows one writer/);
  });
});

describe.runIf(DIALECTS.includes('postgres'))('KASSA_WORKERS=2 on PostgreSQL (node:cluster)', () => {
  let database: FreshDatabase;
  let server: ServerProcess;
  let url: string;
  let authorization: string;
  const dispatcher = new Agent({ connect: { ca: undefined, rejectUnauthorized: false }, pipelining: 0 });

  beforeAll(async () => {
    database = await freshDatabase('postgres');
    const port = await freePort();
    url = `https://127.0.0.1:${port}`;
    server = await startServerProcess({
      KASSA_WORKERS: '2',
      DATABASE_URL: database.url,
      KASSA_HOST: '127.0.0.1',
      KASSA_PORT: String(port),
      KASSA_PUBLIC_URL: url,
      KASSA_DATA_DIR: mkdtempSync(join(tmpdir(), 'kassa-workers-')),
      KASSA_TLS_CERT: inject('tlsCertFile'),
      KASSA_TLS_KEY: inject('tlsKeyFile'),
      KASSA_MAX_EVENT_LOOP_DELAY: '0',
      LOG_LEVEL: 'warn',
    });
    const [, apiKey] = (await server.waitFor(/apiKey:\s+(\S+)/, 60_000)) as RegExpMatchArray;
    await server.waitFor(/Kassa listens on .*2 worker processes/, 60_000);
    authorization = `Basic ${Buffer.from(`demo:${apiKey}`).toString('base64')}`;
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    for (const pid of server?.child.pid ? childPids(server.child.pid) : []) process.kill(pid, 'SIGKILL');
    await dispatcher.close();
    await database?.drop();
  });

  const pay = async () => {
    const res = await fetch(`${url}/api/v1/payments`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(directPayment(testPan('40000000', '1000'))),
      dispatcher,
    });
    return { status: res.status, body: (await res.json()) as { payId?: string; status?: string } };
  };

  it('runs two worker processes on one port; a worker that crashes is replaced and the port keeps serving', async () => {
    const primary = server.child.pid as number;
    const workers = childPids(primary);
    expect(workers).toHaveLength(2);
    expect((await pay()).status).toBe(201);

    process.kill(workers[0] as number, 'SIGKILL');
    // Once the primary saw the crash, the surviving worker answers while the replacement starts (a connection handed
    // to the worker in the instant it died is lost with it, as with any crashed process behind a balancer).
    await server.waitFor(/exited \(SIGKILL\); starting a new one/);
    expect((await pay()).status).toBe(201);
    await expect
      .poll(() => childPids(primary).filter((pid) => pid !== workers[0]), { timeout: 60_000, interval: 250 })
      .toHaveLength(2);
  });

  // Money: a payment being created when the operator stops Kassa is finished and recorded in every worker.
  it('SIGTERM drains every worker: requests in flight answer, every 201 is stored, the primary exits 0', {
    timeout: 90_000,
  }, async () => {
    const primary = server.child.pid as number;
    await expect.poll(() => childPids(primary), { timeout: 60_000, interval: 250 }).toHaveLength(2);
    type Outcome = { status: number; body: { payId?: string }; at: number } | { error: string };
    const outcomes: Promise<Outcome>[] = [];
    let firstAnswer: () => void = () => {};
    const answering = new Promise<void>((resolve) => {
      firstAnswer = resolve;
    });
    for (let i = 0; i < 32; i++) {
      outcomes.push(
        pay().then(
          (r) => {
            firstAnswer();
            return { ...r, at: Date.now() };
          },
          (error: Error) => ({ error: `${error.message}: ${(error.cause as Error | undefined)?.message}` }),
        ),
      );
    }
    // Signal at the first answer, while the workers are handling the others.
    await answering;
    const signalledAt = Date.now();
    const exitCode = server.stop('SIGTERM');
    const results = await Promise.all(outcomes);
    expect(await exitCode, server.output()).toBe(0);
    expect(server.output()).toContain('draining 2 workers');

    // Every request sent before the signal either finished (201) or was refused cleanly (503 while closing): none is
    // cut off, and some finished after the signal, i.e. while the workers were draining.
    expect(results.filter((r) => 'error' in r)).toEqual([]);
    const answered = results as Extract<Outcome, { status: number }>[];
    for (const r of answered) expect([201, 503]).toContain(r.status);
    expect(answered.filter((r) => r.status === 201 && r.at > signalledAt).length).toBeGreaterThan(0);
    const created = answered.filter((r) => r.status === 201).map((r) => r.body.payId as string);
    const stored = await database.db.kysely
      .selectFrom('payment')
      .select('pay_id')
      .where('pay_id', 'in', created)
      .execute();
    expect(stored.map((r) => r.pay_id).sort()).toEqual([...created].sort());
  });
});
