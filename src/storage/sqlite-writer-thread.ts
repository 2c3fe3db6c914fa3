import { createRequire } from 'node:module';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';

/** What one statement returned: rows for a reader (select, `returning`), else the change count. */
export interface StatementResult {
  rows?: Record<string, unknown>[];
  changes?: number;
  lastInsertRowid?: number | bigint;
  /** Whether the connection is inside a transaction after the statement (an I/O error may have rolled it back). */
  inTransaction: boolean;
}

/** A statement sent ahead of another one (or of the COMMIT) in the same message; its own result is not returned. */
export interface PrefixStatement {
  sql: string;
  params?: readonly unknown[];
}

type SyncReply = { ok: true; result: StatementResult } | { ok: false; error: SerializedError; inTransaction: boolean };
type AsyncReply = { id: number; ok: true } | { id: number; ok: false; error: SerializedError };
interface SerializedError {
  message: string;
  name: string;
  code?: string;
}

/** How long the event loop may wait for one statement before it gives the writer up for dead, ms. */
const STATEMENT_TIMEOUT_MS = 30_000;
/** Prepared statements kept per connection (Kysely's SQL text varies with the number of values in a few queries). */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * The writer thread's program (CommonJS, evaluated by `new Worker(…, { eval: true })` so it starts fast and needs no
 * TypeScript loader). It owns the database's only write connection (WAL, synchronous=FULL: every COMMIT is fsynced
 * before it returns) and executes what the main thread sends:
 * - on the synchronous port: one statement at a time, answered before the main thread continues (Atomics.wait);
 * - on the worker's own port: BEGIN IMMEDIATE, COMMIT (the fsync) and close, answered asynchronously, so the event
 *   loop serves other requests while the disk syncs.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
const { file, port, signal, cacheSize } = workerData;
const flag = new Int32Array(signal);
let db;
const cache = new Map();
function prepare(sql) {
  let stmt = cache.get(sql);
  if (stmt === undefined) {
    stmt = db.prepare(sql);
    if (cache.size >= cacheSize) cache.delete(cache.keys().next().value);
    cache.set(sql, stmt);
  }
  return stmt;
}
function runAll(statements) {
  for (const s of statements) {
    if (s.params === undefined) prepare(s.sql).run();
    else prepare(s.sql).run(s.params);
  }
}
const serialize = (e) => ({ message: String(e && e.message), name: String(e && e.name), code: e && e.code });
let current = 0;
function reply(message) {
  message.id = current;
  port.postMessage(message);
  Atomics.add(flag, 0, 1);
  Atomics.notify(flag, 0);
}
port.on('message', (m) => {
  current = m.id;
  try {
    if (m.op === 'open') {
      db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      reply({ ok: true, result: { inTransaction: false } });
      return;
    }
    if (m.prefix !== undefined) runAll(m.prefix);
    const stmt = prepare(m.sql);
    if (stmt.reader) {
      reply({ ok: true, result: { rows: stmt.all(m.params), inTransaction: db.inTransaction } });
    } else {
      const r = stmt.run(m.params);
      reply({ ok: true, result: { changes: r.changes, lastInsertRowid: r.lastInsertRowid, inTransaction: db.inTransaction } });
    }
  } catch (e) {
    reply({ ok: false, error: serialize(e), inTransaction: db !== undefined && db.inTransaction });
  }
});
parentPort.on('message', (m) => {
  try {
    if (m.op === 'begin') prepare('begin immediate').run();
    else if (m.op === 'commit') {
      if (m.prefix !== undefined) runAll(m.prefix);
      prepare('commit').run();
    }
    else if (m.op === 'rollback') { if (db.inTransaction) db.prepare('rollback').run(); }
    else if (m.op === 'close') { cache.clear(); db.close(); }
    parentPort.postMessage({ id: m.id, ok: true });
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, error: serialize(e) });
  }
});
`;

function deserialize(e: SerializedError): Error {
  return Object.assign(new Error(e.message), { name: e.name, ...(e.code !== undefined && { code: e.code }) });
}

/**
 * The SQLite write connection in a worker thread. Statements run synchronously from the caller's point of view (the
 * event loop waits the few microseconds a statement takes, never an fsync); `begin`, `commit` and `close` are
 * asynchronous. Callers serialize their use (SqliteGroupCommitDriver's writer lock).
 */
export class SqliteWriterThread {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private readonly pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private callId = 0;
  private dead: Error | undefined;

  /** Opens `file` in the writer thread (WAL, synchronous=FULL, foreign keys, busy_timeout 5 s). @throws on failure. */
  constructor(file: string) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file,
        port: port2,
        signal: this.signal.buffer,
        cacheSize: STATEMENT_CACHE_SIZE,
        betterSqlite3: createRequire(import.meta.url).resolve('better-sqlite3'),
      },
      transferList: [port2],
    });
    this.worker.on('message', (m: AsyncReply) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.ok) p?.resolve();
      else p?.reject(deserialize(m.error));
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`SQLite writer thread exited (${code})`)));
    this.call({ op: 'open' });
  }

  /**
   * Runs one statement in the writer's connection, after the statements of `prefix` (BEGIN, savepoint bookkeeping
   * and deferrable writes that need no answer of their own ride along instead of costing a round trip each).
   * @throws the statement's error (with SQLite's `code`).
   */
  run(sql: string, params: readonly unknown[], prefix?: readonly PrefixStatement[]): StatementResult {
    return this.call(prefix === undefined || prefix.length === 0 ? { sql, params } : { sql, params, prefix });
  }

  /** BEGIN IMMEDIATE (takes the database's write lock; may wait up to busy_timeout for another process). */
  begin(): Promise<void> {
    return this.send('begin');
  }

  /** COMMIT (after the statements of `prefix`): returns once the transaction is on disk (synchronous=FULL fsyncs the WAL). */
  commit(prefix?: readonly PrefixStatement[]): Promise<void> {
    return this.send('commit', prefix);
  }

  /** ROLLBACK of the open transaction, if any. */
  rollback(): Promise<void> {
    return this.send('rollback');
  }

  async close(): Promise<void> {
    if (!this.dead) await this.send('close');
    this.dead ??= new Error('SQLite writer closed');
    await this.worker.terminate();
  }

  private send(op: string, prefix?: readonly PrefixStatement[]): Promise<void> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, prefix });
    });
  }

  private call(message: Record<string, unknown>): StatementResult {
    if (this.dead) throw this.dead;
    const id = ++this.callId;
    const deadline = Date.now() + STATEMENT_TIMEOUT_MS;
    let seen = Atomics.load(this.signal, 0);
    this.port.postMessage({ ...message, id });
    // The worker posts its answer, then bumps the counter and wakes us. Answers are matched by id, and the port is
    // read again after every wake-up, so neither a late answer nor the order of the two steps can mislead us.
    for (;;) {
      const reply = receiveMessageOnPort(this.port)?.message as (SyncReply & { id: number }) | undefined;
      if (reply !== undefined && reply.id === id) {
        if (!reply.ok) throw Object.assign(deserialize(reply.error), { inTransaction: reply.inTransaction });
        return reply.result;
      }
      if (reply !== undefined) continue; // an answer to an earlier call that timed out
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`SQLite writer did not answer within ${STATEMENT_TIMEOUT_MS} ms`);
      Atomics.wait(this.signal, 0, seen, Math.min(left, 100));
      seen = Atomics.load(this.signal, 0);
    }
  }

  private fail(error: Error): void {
    this.dead ??= error;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}
