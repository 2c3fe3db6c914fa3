import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, Migrator } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';
import { LISTENER_APPLICATION_NAME } from './postgres-auth-listener.js';
import { PostgresDeferringDialect } from './postgres-deferring-driver.js';
import { preparingStatements, StatementNames } from './postgres-prepared-statements.js';
import { PostgresDeadlinePool } from './postgres-query-deadline.js';
import { type GroupCommitStats, SqliteGroupCommitDialect } from './sqlite-group-commit.js';

export type DialectName = 'sqlite' | 'postgres';

/** An open database: the Kysely instance, which dialect it speaks, and how to close it. */
export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  close(): Promise<void>;
  /** SQLite: figures of the group commit (commits, units, synchronous writer round trips). */
  groupCommit?: GroupCommitStats;
  /**
   * PostgreSQL with `listen`: a new client outside the pool, with the pool's settings, for a connection
   * that stays LISTENing (postgres-auth-listener.ts).
   */
  listenerClient?: () => pg.Client;
  /**
   * PostgreSQL: sets the deadline of every query sent from now on, in ms (0: none; PostgresDeadlinePool).
   * openDatabase sets KASSA_POSTGRES_QUERY_TIMEOUT once the migrations ran, which may build indexes for minutes.
   */
  setQueryTimeout?: (timeoutMs: number) => void;
}

/**
 * PostgreSQL: `poolSize` connections (10), named prepared statements unless `preparedStatements` is false, a LISTEN
 * connection for the credentials epoch when `listen` is true (KASSA_POSTGRES_LISTEN=on), a deadline of
 * `queryTimeoutMs` on every query (default 0: none; PostgresDeadlinePool).
 */
export type DbOptions =
  | { dialect: 'sqlite'; file: string }
  | {
      dialect: 'postgres';
      url: string;
      poolSize?: number;
      preparedStatements?: boolean;
      listen?: boolean;
      queryTimeoutMs?: number;
      /** ms to get a connection (a new one established, or a free one), else PostgresConnectTimeoutError (5,000). */
      connectTimeoutMs?: number;
    };

const INT8_OID = 20;

/**
 * Opens the database. SQLite runs in WAL mode with synchronous=FULL so a commit survives a power cut
 * (durable commits), its writes grouped into shared commits by a writer thread (sqlite-group-commit.ts), busy_timeout
 * 5 s (another process, the CLI, may hold the write lock briefly); PostgreSQL's int8 columns are parsed to numbers (money stays far below 2^53).
 */
export function createDb(options: DbOptions): Db {
  if (options.dialect === 'sqlite') {
    if (options.file !== ':memory:') {
      mkdirSync(dirname(options.file), { recursive: true, mode: 0o700 });
      // An empty file is an empty SQLite database; created owner-only, so its -wal and -shm (which SQLite creates
      // with the database file's permissions) are 0600 too: customer data and webhook secrets (issue 9, defect 4).
      closeSync(openSync(options.file, 'a', 0o600));
    }
    // One writer thread with group commit; reads on a connection of their own (sqlite-group-commit.ts).
    const dialect = new SqliteGroupCommitDialect(options.file);
    const kysely = new Kysely<Database>({ dialect });
    return { kysely, dialect: 'sqlite', close: () => kysely.destroy(), groupCommit: dialect.driver.stats };
  }
  const connection = {
    connectionString: options.url,
    // ms: a database that accepts TCP but does not answer fails the checkout instead of hanging the request.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as never,
    },
  };
  const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 10 });
  // An idle client whose server connection ends (restart, failover, admin termination) emits 'error' on the pool;
  // unhandled, that would crash the process. The pool replaces the client on the next checkout.
  pool.on('error', (error: Error & { code?: string }) => {
    if (error.code !== '57P01') console.error(`PostgreSQL idle client error: ${error.message}`);
  });
  // A checked-out client (inside a transaction, between two queries) has no pool listener: its connection dropping
  // would be an unhandled 'error' event and end the process. Its queries fail instead (the request answers 503
  // DATABASE_UNAVAILABLE), and the pool discards it on release because it is no longer queryable.
  // Statements are planned once per connection, not per execution (postgres-prepared-statements.ts, issue 12).
  const statementNames = options.preparedStatements === false ? undefined : new StatementNames();
  pool.on('connect', (client) => {
    client.on('error', () => {});
    if (statementNames) preparingStatements(client, statementNames);
  });
  // A server that stops answering fails the query after the deadline, and its connection is replaced.
  const deadlinePool = new PostgresDeadlinePool(pool, options.queryTimeoutMs ?? 0);
  // Deferrable writes of a transaction go to the server as one statement (postgres-deferring-driver.ts, issue 12).
  const kysely = new Kysely<Database>({ dialect: new PostgresDeferringDialect({ pool: deadlinePool }) });
  return {
    kysely,
    dialect: 'postgres',
    close: () => kysely.destroy(),
    setQueryTimeout: (timeoutMs) => {
      deadlinePool.timeoutMs = timeoutMs;
    },
    ...(options.listen === true && {
      listenerClient: () => new pg.Client({ ...connection, application_name: LISTENER_APPLICATION_NAME }),
    }),
  };
}

/**
 * Brings the schema to the latest migration. Safe to run from several processes at once (Kysely's migration lock).
 * @throws the first failing migration's error.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Migrates up or down to the migration `name` (`kassa migrate --to`): the way back to an earlier release, whose
 * migrator refuses a database that has run a migration it does not know. Down migrations undo the later ones, newest
 * first. Returns the names run, each with its direction.
 * @throws Kysely's Error when `name` is not a migration (`kassa migrate --to` lists the known ones instead); the first
 *   failing migration's error.
 */
export async function migrateTo(db: Db, name: string): Promise<{ name: string; direction: 'Up' | 'Down' }[]> {
  const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateTo(name);
  if (error) throw error;
  return (results ?? [])
    .filter((r) => r.status === 'Success')
    .map((r) => ({ name: r.migrationName, direction: r.direction }));
}

/** Whether `error` is a unique-constraint violation, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | undefined;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
