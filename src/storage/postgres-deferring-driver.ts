import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { isDeferrable } from './deferrable.js';

/** A transaction as this driver holds it until something needs the server. */
interface OpenTransaction {
  settings: TransactionSettings;
  /** BEGIN was sent (a statement needed an answer). */
  begun: boolean;
  /** Deferrable writes not sent yet, in order. */
  queued: CompiledQuery[];
}

/**
 * Joins deferrable writes into one statement: `with w0 as (q0), w1 as (q1), … qN`, each statement's `$n` placeholders
 * renumbered after the ones before it. PostgreSQL runs every data-modifying statement of a WITH exactly once, on one
 * snapshot, atomically with the rest of the statement (https://www.postgresql.org/docs/current/queries-with.html#QUERIES-WITH-MODIFYING).
 */
export function combineWrites(queries: readonly CompiledQuery[]): CompiledQuery {
  if (queries.length === 1 && queries[0] !== undefined) return queries[0];
  let offset = 0;
  const statements = queries.map((q) => {
    const base = offset;
    offset += q.parameters.length;
    return q.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + base}`);
  });
  const last = statements.pop();
  const ctes = statements.map((s, i) => `w${i} as (${s})`).join(', ');
  return CompiledQuery.raw(
    `with ${ctes} ${last}`,
    queries.flatMap((q) => [...q.parameters]),
  );
}

/** Whether a deferrable write can be joined with others: placeholders only, no literal a `$n` could hide in. */
function joinable(query: CompiledQuery): boolean {
  return !query.sql.includes("'") && !query.sql.includes('$$');
}

/** The table an UPDATE statement modifies, else undefined. */
function updatedTable(query: CompiledQuery): string | undefined {
  return /^\s*update\s+("[^"]+"|\S+)/i.exec(query.sql)?.[1];
}

class DeferringConnection implements DatabaseConnection {
  tx: OpenTransaction | undefined;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly driver: Driver,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const tx = this.tx;
    if (tx === undefined) return this.inner.executeQuery<R>(query);
    if (isDeferrable(query) && joinable(query)) {
      // Two updates of one table might modify one row twice in one statement, which PostgreSQL does not order:
      // send the earlier writes first.
      const table = updatedTable(query);
      if (table !== undefined && tx.queued.some((q) => updatedTable(q) === table)) await this.flush(tx);
      tx.queued.push(query);
      return { rows: [] };
    }
    await this.flush(tx);
    return this.inner.executeQuery<R>(query);
  }

  /** Opens the transaction on the server (once) and sends the queued writes, as one statement. */
  async flush(tx: OpenTransaction): Promise<void> {
    if (!tx.begun) {
      await this.driver.beginTransaction(this.inner, tx.settings);
      tx.begun = true;
    }
    if (tx.queued.length === 0) return;
    const writes = combineWrites(tx.queued);
    tx.queued = [];
    await this.inner.executeQuery(writes);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.tx !== undefined) throw new Error('streaming inside a transaction is not supported');
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * Kysely's PostgreSQL driver with fewer round trips per transaction (issue 12). Each statement is a round trip to
 * the server, and on this machine's loopback a round trip's send costs the Node.js thread ~70 µs of CPU (a DIRECT
 * payment's transaction of BEGIN, six statements and COMMIT spent 40 % of the event loop's busy time in `writev`).
 * Here BEGIN waits until a statement needs an answer; writes marked `deferrable` (deferrable.ts) are queued and
 * sent as one statement before the next statement that needs an answer, or at COMMIT. A transaction of deferrable
 * writes only — a payment's result: its update, operations, 3-D Secure close and notifications — is then ONE
 * statement without BEGIN and COMMIT: atomic and durable on its own (`synchronous_commit=on`: its answer comes after
 * the WAL flush), one round trip instead of eight. Isolation, error and rollback behaviour are those of the
 * transaction: a failing write fails it (at commit at the latest) and nothing of it is stored.
 */
export class PostgresDeferringDriver implements Driver {
  private readonly connections = new WeakMap<DatabaseConnection, DeferringConnection>();

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.inner.acquireConnection();
    let connection = this.connections.get(inner);
    if (connection === undefined) {
      connection = new DeferringConnection(inner, this.inner);
      this.connections.set(inner, connection);
    }
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    (connection as DeferringConnection).tx = { settings, begun: false, queued: [] };
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as DeferringConnection;
    const tx = c.tx;
    if (tx === undefined) return;
    if (!tx.begun) {
      // Nothing needed an answer: the queued writes are the whole transaction, one statement.
      c.tx = undefined;
      if (tx.queued.length > 0) await c.inner.executeQuery(combineWrites(tx.queued));
      return;
    }
    await c.flush(tx); // on failure the transaction stays open: Kysely rolls it back
    c.tx = undefined;
    await this.inner.commitTransaction(c.inner);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as DeferringConnection;
    const tx = c.tx;
    c.tx = undefined;
    if (tx?.begun) await this.inner.rollbackTransaction(c.inner);
  }

  /** Savepoints order the writes around them: the queued ones go first. */
  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    const inner = await this.flushed(connection);
    await this.inner.savepoint?.(inner, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    const c = connection as DeferringConnection;
    if (c.tx) c.tx.queued = []; // written after the savepoint: undone with it
    await this.inner.rollbackToSavepoint?.(c.inner, name, compileQuery);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    const inner = await this.flushed(connection);
    await this.inner.releaseSavepoint?.(inner, name, compile);
  }

  /** The server connection, once the transaction's queued writes are sent. */
  private async flushed(connection: DatabaseConnection): Promise<DatabaseConnection> {
    const c = connection as DeferringConnection;
    if (c.tx) await c.flush(c.tx);
    return c.inner;
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    const c = connection as DeferringConnection;
    c.tx = undefined;
    return this.inner.releaseConnection(c.inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** Kysely's PostgresDialect with PostgresDeferringDriver. */
export class PostgresDeferringDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new PostgresDeferringDriver(super.createDriver());
  }
}
