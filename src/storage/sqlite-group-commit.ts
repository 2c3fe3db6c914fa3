import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { SqliteWriterThread, STATEMENT_CACHE_SIZE, type StatementResult } from './sqlite-writer-thread.js';

/** A batch commits after this many units of work even when more are waiting (bounds a request's wait). */
export const MAX_BATCH_UNITS = 128;
/** …or once it has been open this long, ms. */
export const MAX_BATCH_MS = 4;

/** Figures of the group commit, for tests and the benchmark. */
export interface GroupCommitStats {
  /** COMMITs (fsyncs) done. */
  commits: number;
  /** Units of work (transactions and single writes) those commits carried. */
  units: number;
}

/**
 * One group commit: the units of work run inside one SQLite transaction (each in its own savepoint, so a failing
 * unit rolls back alone) and all learn together whether the COMMIT reached the disk.
 */
class Batch {
  units = 0;
  readonly openedAt = performance.now();
  readonly durable: Promise<void>;
  resolve!: () => void;
  reject!: (error: Error) => void;
  constructor() {
    this.durable = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // A batch may fail while no unit awaits it yet; each unit awaits it (and gets the error) in its own time.
    this.durable.catch(() => {});
  }
}

/**
 * The SQLite driver of Kassa (DESIGN.md §1, issue 12): **group commit with durability kept**.
 *
 * - Writes run in a single writer thread (SqliteWriterThread) that owns the only write connection (WAL,
 *   synchronous=FULL). A unit of work — a Kysely transaction, or a single write outside one — takes the writer lock,
 *   runs its statements inside the current batch transaction under a savepoint, releases the lock, then awaits the
 *   batch's COMMIT. The batch commits as soon as no unit is waiting for the lock (or after MAX_BATCH_UNITS units or
 *   MAX_BATCH_MS), asynchronously in the writer thread: one fsync serves every unit of the batch, and the event loop
 *   never waits for an fsync. Units arriving during a COMMIT form the next batch.
 * - A unit's caller continues only after its batch is on disk, so nothing a request answers can be lost by a crash;
 *   a crash before the COMMIT loses the whole batch (SQLite's atomic commit), no unit half-written. If the COMMIT
 *   or a statement's I/O error ends the transaction, every unit of the batch fails.
 * - Reads outside a transaction run on a separate read connection in the main thread (WAL readers never wait for
 *   the writer) and see only committed — durable — data. Reads inside a transaction run on the writer, in order.
 * - Prepared statements are cached on both connections.
 *
 * Units run one after another, as with Kysely's own SQLite driver, so `Store.transaction` stays serializable.
 * `:memory:` databases have one connection only: reads then go through the writer too.
 */
export class SqliteGroupCommitDriver implements Driver {
  private writer: SqliteWriterThread | undefined;
  private reader: SQLite.Database | undefined;
  private readonly readCache = new Map<string, SQLite.Statement>();
  private locked = false;
  private readonly waiters: (() => void)[] = [];
  private batch: Batch | undefined;
  /** Savepoint statements not sent yet: they ride along with the next statement or the COMMIT. */
  private prefix: string[] = [];
  readonly stats: GroupCommitStats = { commits: 0, units: 0 };

  constructor(private readonly file: string) {}

  async init(): Promise<void> {
    this.writer = new SqliteWriterThread(this.file);
    if (this.file !== ':memory:') {
      this.reader = new SQLite(this.file, { fileMustExist: true });
      this.reader.pragma('busy_timeout = 5000');
      this.reader.pragma('query_only = ON');
    }
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new GroupCommitConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as GroupCommitConnection;
    c.batch = await this.startUnit();
    this.prefix.push('savepoint kassa_unit');
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as GroupCommitConnection;
    const batch = c.batch;
    if (batch === undefined) return;
    c.batch = undefined;
    if (this.batch !== undefined) this.releaseUnit();
    this.endUnit();
    await batch.durable;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as GroupCommitConnection;
    if (c.batch === undefined) return; // ended already (its commit failed)
    c.batch = undefined;
    try {
      this.undoUnit();
    } finally {
      this.endUnit();
    }
  }

  /** Ends the unit's savepoint (sent with the next statement or the COMMIT); a unit that wrote nothing leaves no trace. */
  private releaseUnit(): void {
    if (this.prefix.at(-1) === 'savepoint kassa_unit') this.prefix.pop();
    else this.prefix.push('release kassa_unit');
  }

  /** Rolls the unit's savepoint back, unless the batch ended under it (an I/O error rolled it back already). */
  private undoUnit(): void {
    if (this.batch === undefined) return;
    if (this.prefix.at(-1) === 'savepoint kassa_unit') {
      this.prefix.pop();
      return;
    }
    this.execWriter('rollback to kassa_unit', []);
    this.execWriter('release kassa_unit', []);
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint "${name}"`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to "${name}"`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release "${name}"`));
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    if (this.writer === undefined) return;
    await this.lock();
    try {
      if (this.batch !== undefined) await this.commitBatch();
      await this.writer.close();
      this.reader?.close();
    } finally {
      this.writer = undefined;
      this.unlock();
    }
  }

  /** A statement inside the caller's unit (its batch transaction). */
  runInUnit(query: CompiledQuery): QueryResult<unknown> {
    return toQueryResult(this.execWriter(query.sql, query.parameters));
  }

  /** A statement outside a transaction: reads on the read connection; a write is a unit of its own. */
  async runAlone(query: CompiledQuery): Promise<QueryResult<unknown>> {
    if (this.reader !== undefined && SelectQueryNode.is(query.query)) return this.read(query);
    const batch = await this.startUnit();
    let result: StatementResult;
    try {
      // One statement needs no savepoint: SQLite undoes a failing statement alone (or ends the whole transaction on
      // an I/O error, which execWriter turns into the batch's failure).
      result = this.execWriter(query.sql, query.parameters);
    } finally {
      this.endUnit();
    }
    await batch.durable;
    return toQueryResult(result);
  }

  private read(query: CompiledQuery): QueryResult<unknown> {
    const reader = this.reader as SQLite.Database;
    let stmt = this.readCache.get(query.sql);
    if (stmt === undefined) {
      stmt = reader.prepare(query.sql);
      if (this.readCache.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.readCache.keys().next().value;
        if (oldest !== undefined) this.readCache.delete(oldest);
      }
      this.readCache.set(query.sql, stmt);
    }
    return { rows: stmt.all(query.parameters as unknown[]) as unknown[] };
  }

  /** Takes the writer lock and joins (or opens) the current batch. */
  private async startUnit(): Promise<Batch> {
    await this.lock();
    try {
      if (this.writer === undefined) throw new Error('database is closed');
      if (this.batch === undefined) {
        await this.writer.begin();
        this.batch = new Batch();
      }
      this.batch.units++;
      this.stats.units++;
      return this.batch;
    } catch (error) {
      this.unlock();
      throw error;
    }
  }

  /** Releases the writer lock; commits the batch when no unit waits for it, or when the batch is full or old. */
  private endUnit(): void {
    const batch = this.batch;
    const full =
      batch !== undefined && (batch.units >= MAX_BATCH_UNITS || performance.now() - batch.openedAt >= MAX_BATCH_MS);
    if (batch !== undefined && (this.waiters.length === 0 || full)) {
      // The lock passes to the commit; waiting units form the next batch once it is on disk.
      void this.commitBatch().finally(() => this.unlock());
      return;
    }
    this.unlock();
  }

  private async commitBatch(): Promise<void> {
    const batch = this.batch;
    if (batch === undefined || this.writer === undefined) return;
    this.batch = undefined;
    try {
      await this.writer.commit(this.takePrefix());
      this.stats.commits++;
      batch.resolve();
    } catch (error) {
      this.prefix = [];
      await this.writer.rollback().catch(() => {});
      batch.reject(error as Error);
    }
  }

  private takePrefix(): string[] | undefined {
    if (this.prefix.length === 0) return undefined;
    const prefix = this.prefix;
    this.prefix = [];
    return prefix;
  }

  private execWriter(sql: string, parameters: readonly unknown[]): StatementResult {
    if (this.writer === undefined) throw new Error('database is closed');
    try {
      return this.writer.run(sql, parameters, this.takePrefix());
    } catch (error) {
      // An I/O or full-disk error can end the whole transaction: every unit of the batch has lost its writes.
      const batch = this.batch;
      if (batch !== undefined && (error as { inTransaction?: boolean }).inTransaction === false) {
        this.batch = undefined;
        this.prefix = [];
        batch.reject(error as Error);
      }
      throw error;
    }
  }

  private async lock(): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private unlock(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.locked = false;
  }
}

class GroupCommitConnection implements DatabaseConnection {
  /** The batch of the unit this connection runs, between beginTransaction and its end. */
  batch: Batch | undefined;

  constructor(private readonly driver: SqliteGroupCommitDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.batch !== undefined) return this.driver.runInUnit(query) as QueryResult<R>;
    return (await this.driver.runAlone(query)) as QueryResult<R>;
  }

  // biome-ignore lint/correctness/useYield: Kysely's interface; streaming is not offered on this dialect
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported by the SQLite group-commit driver');
  }
}

function toQueryResult(r: StatementResult): QueryResult<unknown> {
  if (r.rows !== undefined) return { rows: r.rows };
  return {
    rows: [],
    numAffectedRows: r.changes === undefined ? undefined : BigInt(r.changes),
    insertId: r.lastInsertRowid === undefined ? undefined : BigInt(r.lastInsertRowid),
  };
}

/** Kysely's dialect over SqliteGroupCommitDriver (SQLite's compiler, adapter and introspector). */
export class SqliteGroupCommitDialect implements Dialect {
  readonly driver: SqliteGroupCommitDriver;
  constructor(file: string) {
    this.driver = new SqliteGroupCommitDriver(file);
  }
  createDriver(): Driver {
    return this.driver;
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  // biome-ignore lint/suspicious/noExplicitAny: Kysely's Dialect signature
  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}
