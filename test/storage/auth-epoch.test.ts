import { randomUUID } from 'node:crypto';
import { type Kysely, type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KyselyAttemptCounters } from '../../src/storage/attempt-counters.kysely.js';
import { KyselyAuthEpoch } from '../../src/storage/auth-epoch.kysely.js';
import { migrateToLatest } from '../../src/storage/create-db.js';
import type { Database } from '../../src/storage/database.js';
import type { ReadAlongside } from '../../src/storage/read-alongside.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';

const WINDOW_MS = 60_000;
const NOW = new Date(Date.UTC(2026, 10, 24, 12, 0, 0));

/**
 * The database as KyselyAuthEpoch sees it, watched: how many statements answered, and a gate that holds each answer
 * on its way back (the statement has run; its caller has not heard yet) until `open()`.
 */
function watched(db: Kysely<Database>) {
  let open: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();
  let onAnswer: () => void = () => {};
  const state = { statements: 0 };
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      state.statements++;
      onAnswer();
      await gate;
      return args.result;
    },
  };
  return {
    db: db.withPlugin(plugin),
    state,
    /** Holds every answer from now on until `open()`; resolves once the next statement has run. */
    hold(): Promise<void> {
      gate = new Promise((resolve) => {
        open = resolve;
      });
      return new Promise((resolve) => {
        onAnswer = resolve;
      });
    },
    open: () => open(),
  };
}

describe.each(DIALECTS)('KyselyAuthEpoch: shared reads, never stale (%s)', (dialect) => {
  let database: FreshDatabase;
  let counters: KyselyAttemptCounters;
  const bumpEpoch = () => sql`update auth_epoch set epoch = epoch + 1 where id = 1`.execute(database.db.kysely);
  const currentEpoch = async () => Number((await new KyselyAuthEpoch(database.db.kysely).read()) ?? 0);

  beforeAll(async () => {
    database = await freshDatabase(dialect);
    await migrateToLatest(database.db);
    counters = new KyselyAttemptCounters(database.db.kysely);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('answers callers that ask together with one statement, each with its own counter', async () => {
    const [k1, k2, k3] = [randomUUID(), randomUUID(), randomUUID()];
    await counters.hit(k1, WINDOW_MS, NOW);
    for (let i = 0; i < 3; i++) await counters.hit(k2, WINDOW_MS, NOW);
    const w = watched(database.db.kysely);
    const epoch = new KyselyAuthEpoch(w.db, true);
    const answers = await Promise.all([
      epoch.readWithAttempts(k1, WINDOW_MS, NOW),
      epoch.readWithAttempts(k2, WINDOW_MS, NOW),
      epoch.readWithAttempts(k3, WINDOW_MS, NOW),
      epoch.readWithAttempts(k2, WINDOW_MS, NOW),
      epoch.read(),
    ]);
    expect(w.state.statements).toBe(1);
    const e = await currentEpoch();
    expect(answers).toEqual([
      { epoch: e, attempts: 1 },
      { epoch: e, attempts: 3 },
      { epoch: e, attempts: 0 },
      { epoch: e, attempts: 3 },
      e,
    ]);
  });

  it('does not answer a caller with a read that was on its way before it asked: a change committed meanwhile is seen', async () => {
    const w = watched(database.db.kysely);
    const epoch = new KyselyAuthEpoch(w.db, true);
    const before = await currentEpoch();
    const ran = w.hold();
    const first = epoch.read();
    await ran; // the first statement has read `before`; its answer is held on the way back
    await bumpEpoch(); // a revocation commits
    const second = epoch.read(); // the next request asks: the held read must not answer it
    const third = epoch.readWithAttempts(randomUUID(), WINDOW_MS, NOW);
    w.open();
    expect(await first).toBe(before);
    expect(await second).toBe(before + 1);
    expect((await third).epoch).toBe(before + 1);
    expect(w.state.statements).toBe(2); // the callers that asked meanwhile shared the second statement
  });

  it('a failing read fails its callers only; the next callers are read afresh', async () => {
    let fail = true;
    const failing: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        if (fail) {
          fail = false;
          throw new Error('connection reset');
        }
        return args.result;
      },
    };
    const epoch = new KyselyAuthEpoch(database.db.kysely.withPlugin(failing), true);
    const together = [epoch.read(), epoch.readWithAttempts(randomUUID(), WINDOW_MS, NOW)];
    await expect(together[0]).rejects.toThrow('connection reset');
    await expect(together[1]).rejects.toThrow('connection reset');
    expect(await epoch.read()).toBe(await currentEpoch());
  });

  it('reads as many counters as callers ask for, in statements of at most AUTH_READ_MAX_KEYS', async () => {
    const keys = Array.from({ length: 40 }, () => randomUUID());
    await counters.hit(keys[39] ?? '', WINDOW_MS, NOW);
    const w = watched(database.db.kysely);
    const epoch = new KyselyAuthEpoch(w.db, true);
    const answers = await Promise.all(keys.map((k) => epoch.readWithAttempts(k, WINDOW_MS, NOW)));
    expect(answers.map((a) => a.attempts)).toEqual([...Array(39).fill(0), 1]);
    expect(w.state.statements).toBe(2);
  });

  it('with shareReads false (SQLite) each caller runs its own statement, with the same answers', async () => {
    const key = randomUUID();
    for (let i = 0; i < 2; i++) await counters.hit(key, WINDOW_MS, NOW);
    const w = watched(database.db.kysely);
    const epoch = new KyselyAuthEpoch(w.db, false);
    const e = await currentEpoch();
    const answers = await Promise.all([epoch.readWithAttempts(key, WINDOW_MS, NOW), epoch.read()]);
    expect(answers).toEqual([{ epoch: e, attempts: 2 }, e]);
    expect(w.state.statements).toBe(2);
  });

  /** A read to run alongside: the epoch row `id` (there is only row 1), as another column name. */
  const epochRowAlongside = (id: number): ReadAlongside<number | undefined> => ({
    shape: 'test.epochRow',
    params: [id],
    build: () =>
      database.db.kysely
        .selectFrom('auth_epoch')
        .select('epoch as row_epoch')
        .where('id', '=', id) as unknown as ReturnType<ReadAlongside<unknown>['build']>,
    parse: (row) => (row.row_epoch == null ? undefined : Number(row.row_epoch)),
  });

  it('with shareReads false (SQLite) reads `alongside` in the same statement: its row, or NULLs when it finds none', async () => {
    const key = randomUUID();
    for (let i = 0; i < 2; i++) await counters.hit(key, WINDOW_MS, NOW);
    const w = watched(database.db.kysely);
    const epoch = new KyselyAuthEpoch(w.db, false);
    const e = await currentEpoch();
    expect(await epoch.readWithAttempts(key, WINDOW_MS, NOW, epochRowAlongside(1))).toEqual({
      epoch: e,
      attempts: 2,
      alongside: { value: e },
    });
    expect(await epoch.readWithAttempts(key, WINDOW_MS, NOW, epochRowAlongside(2))).toEqual({
      epoch: e,
      attempts: 2,
      alongside: { value: undefined },
    });
    expect(w.state.statements).toBe(2);
  });

  it('with shared reads (PostgreSQL) leaves `alongside` unread: the caller reads it on its own', async () => {
    const key = randomUUID();
    await counters.hit(key, WINDOW_MS, NOW);
    const epoch = new KyselyAuthEpoch(database.db.kysely, true);
    const answer = await epoch.readWithAttempts(key, WINDOW_MS, NOW, epochRowAlongside(1));
    expect(answer).toEqual({ epoch: await currentEpoch(), attempts: 1 });
    expect(answer.alongside).toBeUndefined();
  });
});
