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
import {
  type PrefixStatement,
  SqliteWriterThread,
  STATEMENT_CACHE_SIZE,
  type StatementResult,
} from './sqlite-writer-thread.js';

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

const deferrableQueries = new WeakSet<CompiledQuery>();

/**
 * Marks a compiled write (no `returning`) whose result its caller does not read: inside a transaction on SQLite it is
 * not sent on its own but rides along with the unit's next statement, or with the unit's end, so a unit of pure
 * writes costs one writer round trip (issue 12). Its error, if any, surfaces there and rolls the unit back as any
 * failing statement does. Other dialects run it as usual.
 * @returns `query`, for chaining into `executeQuery`.
 */
export function deferrable<Q extends CompiledQuery>(query: Q): Q {
  deferrableQueries.add(query);
  return query;
}

const SAVEPOINT: PrefixStatement = { sql: 'savepoint kassa_unit' };
const RELEASE: PrefixStatement = { sql: 'release kassa_unit' };
const BEGIN: PrefixStatement = { sql: 'begin immediate' };

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
  /**
   * Statements not sent yet — BEGIN, savepoint bookkeeping and deferrable writes — that ride along with the next
   * statement or the COMMIT instead of costing a round trip each.
   */
  private prefix: PrefixStatement[] = [];
  /** Where the open unit's SAVEPOINT sits in `prefix`; -1 once sent (the later entries are all the unit's). */
  private unitStart = -1;
  /** Deferrable writes of the open unit not sent yet. */
  private deferred = 0;
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
    this.unitStart = this.prefix.length;
    this.deferred = 0;
    this.prefix.push(SAVEPOINT);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as GroupCommitConnection;
    const batch = c.batch;
    if (batch === undefined) return;
    // Throws a deferred write's error with the unit still open: Kysely then rolls it back (rollbackTransaction).
    if (this.batch !== undefined) this.releaseUnit();
    c.batch = undefined;
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

  /**
   * Ends the unit's savepoint. Deferred writes are sent now, with the RELEASE, in one round trip (their errors belong
   * to this unit, so they cannot wait for the next one); otherwise the RELEASE rides along with the next statement or
   * the COMMIT, and a unit that wrote nothing leaves no trace.
   * @throws a deferred write's error (the savepoint stays open for undoUnit).
   */
  private releaseUnit(): void {
    if (this.deferred > 0) {
      this.deferred = 0;
      this.execWriter(RELEASE.sql, []);
      this.unitStart = -1;
      return;
    }
    if (this.unitStart >= 0) this.prefix.length = this.unitStart;
    else this.prefix.push(RELEASE);
    this.unitStart = -1;
  }

  /** Rolls the unit's savepoint back, unless the batch ended under it (an I/O error rolled it back already). */
  private undoUnit(): void {
    const sent = this.unitStart < 0;
    if (!sent)
      this.prefix.length = this.unitStart; // nothing of the unit reached the writer: drop it
    else if (this.batch !== undefined) this.prefix = []; // only the unit's unsent deferred writes are left
    this.unitStart = -1;
    this.deferred = 0;
    if (this.batch === undefined || !sent) return;
    this.execWriter('rollback to kassa_unit', []);
    this.execWriter(RELEASE.sql, []);
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

  /** A statement inside the caller's unit (its batch transaction); a deferrable one waits for the next send. */
  runInUnit(query: CompiledQuery): QueryResult<unknown> {
    if (deferrableQueries.has(query) && this.batch !== undefined) {
      this.prefix.push({ sql: query.sql, params: query.parameters });
      this.deferred++;
      return { rows: [] };
    }
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
        // BEGIN IMMEDIATE rides along with the batch's first statement (or its COMMIT): no round trip of its own.
        this.prefix.push(BEGIN);
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

  private takePrefix(): PrefixStatement[] | undefined {
    if (this.prefix.length === 0) return undefined;
    const prefix = this.prefix;
    this.prefix = [];
    this.unitStart = -1;
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
        this.deferred = 0;
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
