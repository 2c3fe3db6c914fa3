/** Scratch PostgreSQL databases for the benchmarks (bench/run.ts, bench/instructions.bench.ts). */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server the benchmarks create their databases on: `BENCH_POSTGRES_URL`, or the local `postgres` superuser. */
export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Creates a new, empty database `kassa_bench_<8 hex>` on POSTGRES_ADMIN_URL's server. @returns its URL and `drop()`
 * (`drop database … with (force)`), or `skipped` naming why when the server cannot be reached.
 */
export async function postgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | { skipped: string }> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    return { skipped: `PostgreSQL not reachable at ${POSTGRES_ADMIN_URL}: ${(error as Error).message}` };
  }
  const name = `kassa_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
