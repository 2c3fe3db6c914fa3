import {
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import { PostgresQueryTimeoutError } from '../../src/storage/postgres-query-deadline.js';
import { kyselyRateLimitStore, type RateLimitState } from '../../src/storage/rate-limit-store.kysely.js';

/** A Kysely whose every query fails with `error`: a database that cannot answer. */
function failingKysely(error: Error): Kysely<Database> {
  const connection: DatabaseConnection = {
    executeQuery: () => Promise.reject(error),
    // biome-ignore lint/correctness/useYield: a stream that fails before its first row
    streamQuery: async function* () {
      throw error;
    },
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: async () => {},
    commitTransaction: async () => {},
    rollbackTransaction: async () => {},
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}

const incr = (db: Kysely<Database>) => {
  const Store = kyselyRateLimitStore(db, () => 1_000_000);
  return new Promise<{ error: Error | null; state?: RateLimitState }>((resolve) =>
    new Store().incr('client', (error, state) => resolve({ error, state }), 60_000),
  );
};

describe('the PostgreSQL rate-limit store when its counter cannot be read', () => {
  it('lets the request through on a failure a retry may not meet (a reset connection)', async () => {
    const reset = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    expect(await incr(failingKysely(reset))).toEqual({ error: null, state: { current: 0, ttl: 60_000 } });
  });

  it('fails the request when the read timed out: its own reads would wait out a deadline too', async () => {
    const timeout = new PostgresQueryTimeoutError(1_000);
    const { error, state } = await incr(failingKysely(timeout));
    expect(error).toBe(timeout);
    expect(state).toBeUndefined();
  });
});
