import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { describeListenError } from '../../src/server/serve.js';
import { kassaCliResult } from '../helpers/cli.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kassa-serve-'));
  dataDirs.push(dir);
  return dir;
}

/** A port on 127.0.0.1 that another process already holds. */
async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/** A line of a stack trace (`    at fn (file:line:col)`). */
const TRACE_LINE = /^\s+at /m;

describe('describeListenError', () => {
  const config = { host: 'kassa.example', port: 8443 };
  it.each([
    ['EADDRINUSE', 'port 8443 is already in use (KASSA_PORT)'],
    ['EACCES', 'port 8443 needs privileges'],
    ['EADDRNOTAVAIL', 'kassa.example is not an address of this machine (KASSA_HOST)'],
    ['ENOTFOUND', 'the host name kassa.example does not resolve (KASSA_HOST)'],
    ['EAI_AGAIN', 'the host name kassa.example does not resolve (KASSA_HOST)'],
    ['EOTHER', 'cannot listen on kassa.example:8443 (KASSA_HOST, KASSA_PORT): boom'],
  ])('%s names the setting: %s', (code, text) => {
    expect(describeListenError(Object.assign(new Error('boom'), { code }), config)).toContain(text);
  });
});

describe('kassa serve that cannot listen stops with one line naming the setting, exit 1', () => {
  let held: Server | undefined;
  let database: FreshDatabase | undefined;
  afterEach(async () => {
    await new Promise((resolve) => held?.close(resolve) ?? resolve(undefined));
    held = undefined;
    await database?.drop();
    database = undefined;
  });

  it('KASSA_PORT already in use', async () => {
    const { port, server } = await takenPort();
    held = server;
    const r = await kassaCliResult(['serve'], {
      KASSA_HOST: '127.0.0.1',
      KASSA_PORT: String(port),
      KASSA_DATA_DIR: dataDir(),
      DATABASE_URL: '',
      KASSA_DEMO: 'off',
      LOG_LEVEL: 'warn',
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`Kassa could not start: port ${port} is already in use (KASSA_PORT)`);
  }, 60_000);

  it('a KASSA_HOST that does not resolve', async () => {
    const r = await kassaCliResult(['serve'], {
      KASSA_HOST: 'nohost.invalid',
      KASSA_DATA_DIR: dataDir(),
      DATABASE_URL: '',
      KASSA_DEMO: 'off',
      LOG_LEVEL: 'warn',
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('Kassa could not start: the host name nohost.invalid does not resolve (KASSA_HOST)');
  }, 60_000);

  describe.runIf(DIALECTS.includes('postgres'))('KASSA_WORKERS=2 (PostgreSQL)', () => {
    // The demo's credentials are shown only once: with the port taken they are neither printed nor created, so the
    // next start (port free) creates the demo merchant and shows its key (the primary used to spend it before forking).
    it('a worker that cannot listen says why, and the primary stops before the demo merchant exists', async () => {
      database = await freshDatabase('postgres');
      const { port, server } = await takenPort();
      held = server;
      const r = await kassaCliResult(['serve'], {
        KASSA_WORKERS: '2',
        KASSA_HOST: '127.0.0.1',
        KASSA_PORT: String(port),
        KASSA_DATA_DIR: dataDir(),
        KASSA_TLS_CERT: inject('tlsCertFile'),
        KASSA_TLS_KEY: inject('tlsKeyFile'),
        DATABASE_URL: database.url,
        KASSA_DEMO: 'on',
        LOG_LEVEL: 'warn',
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`Kassa could not start: port ${port} is already in use (KASSA_PORT)`);
      expect(r.stderr).not.toMatch(TRACE_LINE);
      for (const line of r.stderr.trim().split('\n')) expect(line).toMatch(/^Kassa could not start: /);
      expect(r.stdout).not.toContain('apiKey');
      expect(await database.db.kysely.selectFrom('merchant').select('merchant_id').execute()).toEqual([]);
    }, 90_000);
  });
});
