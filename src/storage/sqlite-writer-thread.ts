import { createRequire } from 'node:module';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';

/** What one statement returned: rows for a reader (select, `returning`), else the change count. */
export interface StatementResult {
  rows?: Record<string, unknown>[];
  changes?: number;
  lastInsertRowid?: number | bigint;
}

/** One statement and its parameters. */
export interface Statement {
  sql: string;
  params?: readonly unknown[];
}

/**
 * A unit of work as the writer runs it: its statements in order, inside a savepoint of its own when `savepoint` (a
 * transaction) so that a failing unit rolls back alone; a single statement needs none (SQLite undoes a failing
 * statement by itself). `opened`: the unit's savepoint is open already (it ran statements earlier in this batch);
 * `rollback`: undo the open unit instead of running anything.
 */
export interface UnitMessage {
  savepoint: boolean;
  opened?: boolean;
  rollback?: boolean;
  statements: Statement[];
}

/** How a unit ended: the last statement's result, or its error (the unit was rolled back, the batch goes on). */
export type UnitOutcome = { ok: true; result?: StatementResult } | { ok: false; error: Error };

/** The whole batch failed (BEGIN, an I/O error that ended the transaction, or the COMMIT): nothing of it is stored. */
export class BatchFailed extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
    this.name = 'BatchFailed';
  }
}

interface SerializedError {
  message: string;
  name: string;
  code?: string;
}
type WireOutcome = { ok: true; result?: StatementResult } | { ok: false; error: SerializedError };
type SyncReply =
  | { id: number; ok: true; outcomes: WireOutcome[]; result: StatementResult }
  | { id: number; ok: false; outcomes: WireOutcome[]; error: SerializedError; lost: boolean };
type AsyncReply =
  | { id: number; ok: true; outcomes?: WireOutcome[]; commitMs?: number }
  | { id: number; ok: false; error: SerializedError; lost?: boolean };

/** How long the event loop may wait for one statement before it gives the writer up for dead, ms. */
const STATEMENT_TIMEOUT_MS = 30_000;
/** Prepared statements kept per connection (Kysely's SQL text varies with the number of values in a few queries). */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * The writer thread's program (CommonJS, evaluated by `new Worker(…, { eval: true })` so it starts fast and needs no
 * TypeScript loader). It owns the database's only write connection (WAL, synchronous=FULL: every COMMIT is fsynced
 * before it returns) and executes what the main thread sends:
 * - on the worker's own port, answered asynchronously (the event loop serves other requests meanwhile): a whole
 *   batch — BEGIN IMMEDIATE if not begun, every queued unit, COMMIT (the fsync) — and close;
 * - on the synchronous port (Atomics.wait), only for a transaction that needs an answer before it can go on (a read,
 *   a write whose result it uses): the queued units, then the open unit's statements so far and the statement.
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
function exec(s) {
  const stmt = prepare(s.sql);
  const params = s.params === undefined ? [] : s.params;
  if (stmt.reader) return { rows: stmt.all(params) };
  const r = stmt.run(params);
  return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
}
const serialize = (e) => ({ message: String(e && e.message), name: String(e && e.name), code: e && e.code });
class Lost extends Error {}
/** Runs one complete unit; its own failure is an outcome, a failure that ended the transaction throws Lost. */
function runUnit(u) {
  if (u.rollback) {
    prepare('rollback to kassa_unit').run();
    prepare('release kassa_unit').run();
    return { ok: true };
  }
  if (u.savepoint && !u.opened) prepare('savepoint kassa_unit').run();
  let result;
  try {
    for (const s of u.statements) result = exec(s);
  } catch (e) {
    if (!db.inTransaction) throw Object.assign(new Lost(), { cause: e });
    if (u.savepoint) {
      prepare('rollback to kassa_unit').run();
      prepare('release kassa_unit').run();
    }
    return { ok: false, error: serialize(e) };
  }
  if (u.savepoint) prepare('release kassa_unit').run();
  return { ok: true, result };
}
function runUnits(m) {
  if (m.begin) prepare('begin immediate').run();
  return m.units.map(runUnit);
}
let current = 0;
function reply(message) {
  message.id = current;
  port.postMessage(message);
  Atomics.add(flag, 0, 1);
  Atomics.notify(flag, 0);
}
port.on('message', (m) => {
  current = m.id;
  if (m.op === 'open') {
    try {
      db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      // Each unit's savepoint journals the pages it changes (its sub-journal, to roll the unit back alone). With
      // SQLite's default temp store those go to a temporary file past 64 KiB: a pwrite per page, 28 % of this
      // thread's CPU under load (issue 12, session 19). In memory they are a copy, dropped when the unit is released.
      db.pragma('temp_store = MEMORY');
      // An 8 MB page cache instead of better-sqlite3's 16 MB: it was the process's largest malloc arena (19.9 MB resident
      // at a 249 MB peak RSS). After a 1M preload payments/s fell 10.8 % from the empty database's with it, 9.9 % with
      // 16 MB: the writer's random-key index pages miss in either (issue 12, session 20; docs/decisions.md).
      db.pragma('cache_size = -8000');
      reply({ ok: true, outcomes: [], result: {} });
    } catch (e) {
      reply({ ok: false, outcomes: [], error: serialize(e), lost: true });
    }
    return;
  }
  let outcomes = [];
  try {
    outcomes = runUnits(m);
  } catch (e) {
    const cause = e instanceof Lost ? e.cause : e;
    reply({ ok: false, outcomes, error: serialize(cause), lost: true });
    return;
  }
  // The open unit: its savepoint stays open whatever happens; the main thread releases or rolls it back later.
  const u = m.open;
  try {
    if (!u.opened) prepare('savepoint kassa_unit').run();
    for (const s of u.statements) exec(s);
    reply({ ok: true, outcomes, result: exec(m.statement) });
  } catch (e) {
    reply({ ok: false, outcomes, error: serialize(e), lost: !db.inTransaction });
  }
});
parentPort.on('message', (m) => {
  try {
    if (m.op === 'commit') {
      let outcomes;
      let commitMs;
      try {
        outcomes = runUnits(m);
        const started = performance.now();
        prepare('commit').run();
        commitMs = performance.now() - started;
      } catch (e) {
        const cause = e instanceof Lost ? e.cause : e;
        if (db.inTransaction) db.prepare('rollback').run();
        parentPort.postMessage({ id: m.id, ok: false, error: serialize(cause), lost: true });
        return;
      }
      parentPort.postMessage({ id: m.id, ok: true, outcomes, commitMs });
      return;
    }
    if (m.op === 'begin') prepare('begin immediate').run();
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

const toOutcome = (o: WireOutcome): UnitOutcome =>
  o.ok ? { ok: true, ...(o.result !== undefined && { result: o.result }) } : { ok: false, error: deserialize(o.error) };

/**
 * The SQLite write connection in a worker thread. A batch of units is sent in one asynchronous message and committed
 * there (the event loop never waits for an fsync); a transaction that needs an answer mid-way waits synchronously
 * for one statement (microseconds). Callers serialize their use (SqliteGroupCommitDriver).
 */
export class SqliteWriterThread {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private readonly pending = new Map<number, { resolve: (r: AsyncReply) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private callId = 0;
  private dead: Error | undefined;

  /**
   * Opens `file` in the writer thread (WAL, synchronous=FULL, foreign keys, busy_timeout 5 s, savepoint journals in
   * memory, an 8 MB page cache). @throws on failure.
   */
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
      p?.resolve(m);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`SQLite writer thread exited (${code})`)));
    const opened = this.call({ op: 'open' });
    if (!opened.ok) throw deserialize(opened.error);
  }

  /**
   * Runs `units` (after BEGIN IMMEDIATE when `begin`), then the open unit's `open.statements` inside its savepoint and
   * `statement`, and answers synchronously. The open unit's savepoint stays open.
   * @returns the outcomes of `units` and the statement's result.
   * @throws BatchFailed when the transaction ended (BEGIN failed, an I/O error): nothing of the batch is stored;
   *   else the open unit's error (with SQLite's `code`) and `outcomes` set on it.
   */
  runOpen(
    begin: boolean,
    units: UnitMessage[],
    open: UnitMessage,
    statement: Statement,
  ): { outcomes: UnitOutcome[]; result: StatementResult } {
    const reply = this.call({ begin, units, open, statement });
    const outcomes = reply.outcomes.map(toOutcome);
    if (reply.ok) return { outcomes, result: reply.result };
    const error = deserialize(reply.error);
    if (reply.lost) throw new BatchFailed(error);
    throw Object.assign(error, { outcomes });
  }

  /**
   * Runs `units` (after BEGIN IMMEDIATE when `begin`) and COMMITs: resolves once the transaction is on disk
   * (synchronous=FULL fsyncs the WAL), with each unit's outcome and how long the COMMIT statement took in the writer
   * thread (`commitMs`, milliseconds: writing the batch's WAL frames and fsyncing them; not the statements before it).
   * @throws BatchFailed when the batch did not commit (it was rolled back whole).
   */
  async commit(begin: boolean, units: UnitMessage[]): Promise<{ outcomes: UnitOutcome[]; commitMs: number }> {
    const reply = await this.send({ op: 'commit', begin, units });
    if (!reply.ok) throw new BatchFailed(deserialize(reply.error));
    return { outcomes: (reply.outcomes ?? []).map(toOutcome), commitMs: reply.commitMs ?? 0 };
  }

  /**
   * BEGIN IMMEDIATE, asynchronously: it may wait up to busy_timeout for another connection's write lock, and that
   * connection's COMMIT may need this very event loop (two Kassa nodes in one process, or the CLI), so the event loop
   * must not wait for it. @throws SQLITE_BUSY when the lock did not come in time.
   */
  async begin(): Promise<void> {
    const reply = await this.send({ op: 'begin' });
    if (!reply.ok) throw deserialize(reply.error);
  }

  /** ROLLBACK of the open transaction, if any. */
  async rollback(): Promise<void> {
    const reply = await this.send({ op: 'rollback' });
    if (!reply.ok) throw deserialize(reply.error);
  }

  async close(): Promise<void> {
    if (!this.dead) await this.send({ op: 'close' });
    this.dead ??= new Error('SQLite writer closed');
    await this.worker.terminate();
  }

  private send(message: Record<string, unknown>): Promise<AsyncReply> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  private call(message: Record<string, unknown>): SyncReply {
    if (this.dead) throw this.dead;
    const id = ++this.callId;
    const deadline = Date.now() + STATEMENT_TIMEOUT_MS;
    let seen = Atomics.load(this.signal, 0);
    this.port.postMessage({ ...message, id });
    // The worker posts its answer, then bumps the counter and wakes us. Answers are matched by id, and the port is
    // read again after every wake-up, so neither a late answer nor the order of the two steps can mislead us.
    for (;;) {
      const reply = receiveMessageOnPort(this.port)?.message as SyncReply | undefined;
      if (reply !== undefined && reply.id === id) return reply;
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
