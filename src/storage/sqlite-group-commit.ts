import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
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
import { isDeferrable } from './deferrable.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import {
  BatchFailed,
  SqliteWriterThread,
  STATEMENT_CACHE_SIZE,
  type Statement,
  type StatementResult,
  type UnitMessage,
  type UnitOutcome,
} from './sqlite-writer-thread.js';

/**
 * COMMITs sent to the writer and not answered yet, at most: the one it runs and the next, waiting in its port, which it
 * starts the moment the first is on disk (issue 12).
 */
export const COMMITS_IN_FLIGHT = 2;

/**
 * Units after which a forming batch goes to the writer at once instead of at the end of the event loop's turn, while
 * fewer than COMMITS_IN_FLIGHT COMMITs are in flight. Measured (docs/decisions.md, "Two batches with the writer"): without
 * it, the units a COMMIT releases (every request of the last batch) run on the event loop while the writer waits, then
 * the writer runs while they wait, in lockstep.
 */
export const EAGER_BATCH_UNITS = 8;

/** Figures of the group commit, for tests and the benchmark. */
export interface GroupCommitStats {
  /** COMMITs (fsyncs) done. */
  commits: number;
  /**
   * How long each COMMIT statement took in the writer thread, nanoseconds (one value per commit): writing the batch's
   * WAL frames and fsyncing them. Every request of a batch waits for it, so its tail is a floor under the requests'
   * latency tail. Callers may `reset()` it to measure a window.
   */
  commitDurations: RecordableHistogram;
  /** Units of work (transactions and single writes) those commits carried. */
  units: number;
  /** Synchronous round trips to the writer (a transaction that needed an answer mid-way). */
  syncCalls: number;
}

/** A unit of work: a Kysely transaction, or one statement outside a transaction. */
class Unit {
  /** Statements not sent to the writer yet. */
  statements: Statement[] = [];
  /** Its savepoint is open in the writer (it ran statements synchronously). */
  opened = false;
  rollback = false;
  /** Its outcome, once the writer ran it (it is stored only once its batch commits). */
  outcome: UnitOutcome | undefined;
  constructor(
    readonly batch: Batch,
    readonly savepoint: boolean,
  ) {}
  toMessage(): UnitMessage {
    const m: UnitMessage = { savepoint: this.savepoint, statements: this.statements };
    if (this.opened) m.opened = true;
    if (this.rollback) m.rollback = true;
    return m;
  }
}

/**
 * One group commit: units queued in memory, sent to the writer in one message with the COMMIT (or, when a
 * transaction needs an answer mid-way, earlier, synchronously). Every unit learns together whether it reached the
 * disk.
 */
class Batch {
  /** Units not sent yet, in order. */
  queued: Unit[] = [];
  /** Units sent synchronously already, whose outcomes wait for the COMMIT. */
  sent: Unit[] = [];
  /** BEGIN IMMEDIATE ran in the writer (a synchronous call opened the transaction). */
  begun = false;
  /** Set when the batch failed whole: nothing of it is stored. */
  failure: Error | undefined;
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
  get size(): number {
    return this.queued.length + this.sent.length;
  }
}

/**
 * The SQLite driver of Kassa (DESIGN.md §1, issue 12): **group commit with durability kept**.
 *
 * - Writes run in a single writer thread (SqliteWriterThread) that owns the only write connection (WAL,
 *   synchronous=FULL). A unit of work — a Kysely transaction, or a single write outside one — is queued in memory
 *   in the forming batch; the batch goes to the writer in ONE asynchronous message that runs every unit (each in its
 *   own savepoint, so a failing unit rolls back alone) and COMMITs: one fsync serves every unit, the event loop never
 *   waits for an fsync, and a unit whose statements are all writes it needs no answer from (`deferrable`, or a single
 *   statement outside a transaction) costs no round trip of its own. A batch goes at the end of the event loop's turn,
 *   or at once when it holds EAGER_BATCH_UNITS units; up to COMMITS_IN_FLIGHT batches are with the writer at a time
 *   (one committing, the next queued), so the writer starts the next COMMIT as soon as one is on disk while the event
 *   loop runs the requests the last one released. Units arriving meanwhile form the next batch.
 * - A transaction that needs an answer mid-way (a read, a write whose result it uses) sends the queued units and its
 *   own statements so far synchronously (the writer answers in microseconds; it first waits for the COMMITs in
 *   flight, without blocking the event loop); its savepoint then stays open in the writer until it ends.
 * - A unit's caller continues only after its batch is on disk, so nothing a request answers can be lost by a crash;
 *   a crash before the COMMIT loses the whole batch (SQLite's atomic commit), no unit half-written. If the COMMIT
 *   or an I/O error ends the transaction, every unit of the batch fails.
 * - Reads outside a transaction run on a separate read connection in the main thread (WAL readers never wait for
 *   the writer) and see only committed — durable — data. Reads inside a transaction run on the writer, in order.
 * - Prepared statements are cached on both connections.
 * - Checkpoints run in a thread of their own (SqliteCheckpointer) beside the writer's own automatic checkpoint, which
 *   under a heavy write load still copies most pages (docs/decisions.md, "The writer's savepoints journal in memory").
 *
 * Transactions run one after another (a lock), as with Kysely's own SQLite driver, so `Store.transaction` stays
 * serializable. `:memory:` databases have one connection only: reads then are units too.
 */
export class SqliteGroupCommitDriver implements Driver {
  private writer: SqliteWriterThread | undefined;
  private reader: SQLite.Database | undefined;
  /** Copies the WAL into the database file beside the writer (sqlite-checkpointer.ts); none for `:memory:`. */
  checkpointer: SqliteCheckpointer | undefined;
  /** Prepared reads of the read connection by SQL, in raw mode, with their result's column names (rowObjects). */
  private readonly readCache = new Map<string, { statement: SQLite.Statement; columns: string[] }>();
  private locked = false;
  private readonly waiters: (() => void)[] = [];
  /** The batch units join now. */
  private forming: Batch | undefined;
  /** The last COMMIT sent, until the writer has answered it and so every one before it (the writer is busy till then). */
  private committing: Promise<void> | undefined;
  /** COMMITs sent and not answered yet (at most COMMITS_IN_FLIGHT). */
  private inFlight = 0;
  /** The transaction between its BEGIN and its end (it holds the lock). */
  private open: Unit | undefined;
  private scheduled = false;
  readonly stats: GroupCommitStats = { commits: 0, commitDurations: createHistogram(), units: 0, syncCalls: 0 };

  constructor(private readonly file: string) {}

  async init(): Promise<void> {
    this.writer = new SqliteWriterThread(this.file);
    if (this.file !== ':memory:') {
      this.reader = new SQLite(this.file, { fileMustExist: true });
      this.reader.pragma('busy_timeout = 5000');
      this.reader.pragma('query_only = ON');
      this.checkpointer = new SqliteCheckpointer(this.file);
    }
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new GroupCommitConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as GroupCommitConnection;
    await this.lock();
    try {
      c.unit = this.join(true);
      this.open = c.unit;
    } catch (error) {
      this.unlock();
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as GroupCommitConnection;
    const unit = c.unit;
    if (unit === undefined) return;
    c.unit = undefined;
    this.endTransaction();
    await this.settled(unit);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as GroupCommitConnection;
    const unit = c.unit;
    if (unit === undefined) return; // ended already
    c.unit = undefined;
    if (unit.batch.failure === undefined) {
      if (unit.opened) {
        // Its savepoint is open in the writer: the undo rides along with the batch (before any later unit).
        unit.statements = [];
        unit.rollback = true;
      } else {
        unit.batch.queued.splice(unit.batch.queued.indexOf(unit), 1);
        this.stats.units--;
      }
    }
    this.endTransaction();
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
      while (this.committing !== undefined) await this.committing;
      if (this.forming !== undefined) await this.commitBatch();
      await this.checkpointer?.close();
      await this.writer.close();
      this.reader?.close();
    } finally {
      this.writer = undefined;
      this.unlock();
    }
  }

  /** A statement inside the caller's transaction: a deferrable one is queued; any other is answered now. */
  async runInUnit(unit: Unit, query: CompiledQuery): Promise<QueryResult<unknown>> {
    const batch = unit.batch;
    if (batch.failure !== undefined) throw batch.failure;
    const statement: Statement = { sql: query.sql, params: query.parameters };
    if (isDeferrable(query)) {
      unit.statements.push(statement);
      return { rows: [] };
    }
    // The writer is busy with the previous batch's COMMIT: wait for it without blocking the event loop.
    while (this.committing !== undefined) await this.committing;
    if (this.writer === undefined) throw new Error('database is closed');
    if (batch.failure !== undefined) throw batch.failure;
    if (!batch.begun) {
      // Asynchronously: BEGIN may wait for another connection's write lock (SqliteWriterThread.begin).
      await this.writer.begin();
      batch.begun = true;
    }
    const before = batch.queued.filter((u) => u !== unit);
    this.stats.syncCalls++;
    try {
      const { outcomes, result } = this.writer.runOpen(
        false,
        before.map((u) => u.toMessage()),
        unit.toMessage(),
        statement,
      );
      this.markSent(batch, before, outcomes);
      return toQueryResult(result);
    } catch (error) {
      if (error instanceof BatchFailed) {
        this.failBatch(batch, error.cause);
        throw error.cause;
      }
      this.markSent(batch, before, (error as { outcomes: UnitOutcome[] }).outcomes);
      throw error;
    } finally {
      unit.statements = [];
      unit.opened = true;
    }
  }

  /** A statement outside a transaction: reads on the read connection; anything else is a unit of its own. */
  async runAlone(query: CompiledQuery): Promise<QueryResult<unknown>> {
    if (this.reader !== undefined && SelectQueryNode.is(query.query)) return this.read(query);
    await this.lock();
    let unit: Unit;
    try {
      unit = this.join(false);
      unit.statements.push({ sql: query.sql, params: query.parameters });
    } finally {
      this.unlock();
    }
    this.schedule();
    return toQueryResult((await this.settled(unit)) ?? {});
  }

  private read(query: CompiledQuery): QueryResult<unknown> {
    const reader = this.reader as SQLite.Database;
    let cached = this.readCache.get(query.sql);
    if (cached === undefined) {
      const statement = reader.prepare(query.sql).raw(true);
      cached = { statement, columns: statement.columns().map((c) => c.name) };
      if (this.readCache.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.readCache.keys().next().value;
        if (oldest !== undefined) this.readCache.delete(oldest);
      }
      this.readCache.set(query.sql, cached);
    }
    return { rows: rowObjects(cached.columns, cached.statement.all(query.parameters as unknown[]) as unknown[][]) };
  }

  /** A new unit in the forming batch (the caller holds the lock). */
  private join(savepoint: boolean): Unit {
    if (this.writer === undefined) throw new Error('database is closed');
    this.forming ??= new Batch();
    const unit = new Unit(this.forming, savepoint);
    this.forming.queued.push(unit);
    this.stats.units++;
    return unit;
  }

  private endTransaction(): void {
    this.open = undefined;
    this.unlock();
    this.schedule();
  }

  /** Waits for the unit's batch to be on disk. @returns the unit's last statement's result. @throws its error. */
  private async settled(unit: Unit): Promise<StatementResult | undefined> {
    await unit.batch.durable;
    const outcome = unit.outcome;
    if (outcome === undefined) return undefined;
    if (!outcome.ok) throw outcome.error;
    return outcome.result;
  }

  private markSent(batch: Batch, units: Unit[], outcomes: UnitOutcome[]): void {
    batch.begun = true;
    units.forEach((u, i) => {
      u.outcome = outcomes[i];
    });
    batch.queued = batch.queued.filter((u) => !units.includes(u));
    batch.sent.push(...units);
  }

  private failBatch(batch: Batch, error: Error): void {
    batch.failure = error;
    if (this.forming === batch) this.forming = undefined;
    batch.reject(error);
  }

  /**
   * Sends the forming batch to the writer when no transaction is open and fewer than COMMITS_IN_FLIGHT COMMITs are in
   * flight: immediately when it holds EAGER_BATCH_UNITS units, else soon (a setImmediate), so that the requests of the
   * same turn of the event loop share the commit. Batches commit in the order they are sent (the writer runs one
   * message at a time), each an SQLite transaction of its own: one that fails does not touch the next.
   */
  private schedule(): void {
    if (this.forming !== undefined && this.forming.size >= EAGER_BATCH_UNITS) this.send();
    if (this.scheduled || this.forming === undefined) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    if (this.inFlight >= COMMITS_IN_FLIGHT || this.open !== undefined || this.forming === undefined) return;
    if (this.forming.size === 0 && !this.forming.begun) return;
    this.inFlight++;
    const commit: Promise<void> = this.commitBatch().finally(() => {
      this.inFlight--;
      if (this.committing === commit) this.committing = undefined;
      if (this.forming !== undefined) this.schedule();
    });
    this.committing = commit;
  }

  private async commitBatch(): Promise<void> {
    const batch = this.forming;
    if (batch === undefined || this.writer === undefined) return;
    this.forming = undefined;
    const units = batch.queued;
    try {
      const { outcomes, commitMs } = await this.writer.commit(
        !batch.begun,
        units.map((u) => u.toMessage()),
      );
      units.forEach((u, i) => {
        u.outcome = outcomes[i];
      });
      this.stats.commits++;
      this.stats.commitDurations.record(Math.max(1, Math.round(commitMs * 1e6)));
      batch.resolve();
    } catch (error) {
      const cause = error instanceof BatchFailed ? error.cause : (error as Error);
      await this.writer?.rollback().catch(() => {});
      batch.failure = cause;
      batch.reject(cause);
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
  /** The unit (transaction) this connection runs, between beginTransaction and its end. */
  unit: Unit | undefined;

  constructor(private readonly driver: SqliteGroupCommitDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.unit !== undefined) return (await this.driver.runInUnit(this.unit, query)) as QueryResult<R>;
    return (await this.driver.runAlone(query)) as QueryResult<R>;
  }

  // biome-ignore lint/correctness/useYield: Kysely's interface; streaming is not offered on this dialect
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported by the SQLite group-commit driver');
  }
}

/**
 * Rows of a raw-mode statement (arrays of column values) as objects keyed by column name, as better-sqlite3's own
 * object mode builds them (a repeated name keeps the later column). Built here because better-sqlite3 sets each
 * column through V8's API and internalizes its name for every row: the 32-column payment row took ~10 µs that way,
 * ~8 µs as a raw row with this mapping (issue 12, session 12).
 * @param columns the statement's result column names (`Statement.columns()`), in order.
 */
export function rowObjects(columns: readonly string[], rows: readonly unknown[][]): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const values = rows[r] as unknown[];
    const row: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) row[columns[i] as string] = values[i];
    objects[r] = row;
  }
  return objects;
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
