import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { generate } from 'selfsigned';
import 'vitest';
import type { TestProject } from 'vitest/node';

/** Where the PostgreSQL suite connects; each test file creates and drops its own database there. */
export const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

declare module 'vitest' {
  export interface ProvidedContext {
    dialects: ('sqlite' | 'postgres')[];
    postgresUrl: string;
    tlsCertFile: string;
    tlsKeyFile: string;
  }
}

async function postgresReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Decides which dialects the storage suites run on (DIALECTS=sqlite,postgres narrows or forces them, like Kysely's
 * own test setup) and makes one self-signed certificate for every HTTPS test server of the run. Everything the run
 * writes to the temp directory (data directories, SQLite files, certificates, browser profiles, of the test workers
 * and the servers they start) goes under one run directory: TMPDIR points there for the workers, which inherit it.
 * @returns the teardown that removes the run directory.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const postgresUrl = process.env.KASSA_TEST_POSTGRES_URL ?? DEFAULT_TEST_POSTGRES_URL;
  const requested = (process.env.DIALECTS ?? '').split(',').filter(Boolean);
  const dialects: ('sqlite' | 'postgres')[] = ['sqlite'];
  if (requested.length > 0) {
    dialects.length = 0;
    for (const d of requested) {
      if (d !== 'sqlite' && d !== 'postgres') throw new Error(`DIALECTS: unknown dialect ${d}`);
      dialects.push(d);
    }
    if (dialects.includes('postgres') && !(await postgresReachable(postgresUrl))) {
      throw new Error(`DIALECTS asks for postgres but ${postgresUrl} is not reachable`);
    }
  } else if (await postgresReachable(postgresUrl)) {
    dialects.push('postgres');
  } else {
    console.warn(`PostgreSQL not reachable at ${postgresUrl}: PostgreSQL suite skipped (SQLite only).`);
  }
  console.log(`storage dialects under test: ${dialects.join(', ')}`);

  const runDir = mkdtempSync(join(tmpdir(), 'kassa-test-run-'));
  // Traversable, not listable: a test's own PostgreSQL cluster runs as the postgres user in a directory of its own
  // under it (test/scale/own-postgres.ts); every directory made inside is mkdtemp's 0700.
  chmodSync(runDir, 0o711);
  process.env.TMPDIR = runDir; // os.tmpdir() of the workers, of the processes they start, and of this one
  const dir = join(runDir, 'tls');
  mkdirSync(dir, { mode: 0o700 });
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    notAfterDate: new Date(Date.now() + 2 * 86_400_000),
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const tlsCertFile = join(dir, 'cert.pem');
  const tlsKeyFile = join(dir, 'key.pem');
  writeFileSync(tlsCertFile, pems.cert);
  writeFileSync(tlsKeyFile, pems.private, { mode: 0o600 });

  project.provide('dialects', dialects);
  project.provide('postgresUrl', postgresUrl);
  project.provide('tlsCertFile', tlsCertFile);
  project.provide('tlsKeyFile', tlsKeyFile);
  // Vitest's teardown: the run's temp files and certificate go with it.
  return () => rmSync(runDir, { recursive: true, force: true });
}
