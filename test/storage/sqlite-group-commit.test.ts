import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isUniqueViolation } from '../../src/storage/create-db.js';
import { deferrable } from '../../src/storage/deferrable.js';
import {
  COMMITS_IN_FLIGHT,
  EAGER_BATCH_UNITS,
  rowObjects,
  SqliteGroupCommitDialect,
} from '../../src/storage/sqlite-group-commit.js';

interface Db {
  item: { id: number; label: string };
}

/** The SQLite group-commit driver (issue 12): shared COMMITs, units isolated by savepoints, durable-only reads. */
describe('SQLite group commit', () => {
  let dir: string;
  let file: string;
  let dialect: SqliteGroupCommitDialect;
  let db: Kysely<Db>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kassa-gc-'));
    file = join(dir, 'gc.db');
    dialect = new SqliteGroupCommitDialect(file);
    db = new Kysely<Db>({ dialect });
    await sql`create table item (id integer primary key, label text not null)`.execute(db);
  });

  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits concurrent transactions together: fewer COMMITs than transactions, every row on disk', async () => {
    const before = { ...dialect.driver.stats };
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        db.transaction().execute(async (tx) => {
          await tx
            .insertInto('item')
            .values({ id: i, label: `a${i}` })
            .execute();
          await tx
            .insertInto('item')
            .values({ id: 1000 + i, label: `b${i}` })
            .execute();
        }),
      ),
    );
    const commits = dialect.driver.stats.commits - before.commits;
    expect(dialect.driver.stats.units - before.units).toBe(50);
    expect(commits).toBeGreaterThanOrEqual(1);
    expect(commits).toBeLessThan(50);
    // Another connection (another process) sees all of it: committed, not just visible to the writer.
    const other = new SQLite(file, { readonly: true });
    expect(other.prepare('select count(*) as n from item').get()).toEqual({ n: 100 });
    other.close();
  });

  it('times every COMMIT in the writer thread: one duration per commit, in nanoseconds of the time it took', async () => {
    const durations = dialect.driver.stats.commitDurations;
    durations.reset(); // beforeEach's CREATE TABLE committed before the window measured here
    const before = dialect.driver.stats.commits;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        db
          .insertInto('item')
          .values({ id: i, label: `t${i}` })
          .execute(),
      ),
    );
    const wallNs = Number(process.hrtime.bigint() - started);
    const commits = dialect.driver.stats.commits - before;
    expect(commits).toBeGreaterThan(0);
    expect(durations.count).toBe(commits);
    // Each COMMIT happened within the writes' wall time, so together they cannot have taken longer.
    expect(durations.min).toBeGreaterThan(0);
    expect(durations.mean * durations.count).toBeLessThanOrEqual(wallNs);
  });

  it('a failing transaction rolls back alone; the others of its batch commit', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        db.transaction().execute(async (tx) => {
          await tx.insertInto('item').values({ id: i, label: 'x' }).execute();
          if (i === 4) throw new Error('unit 4 fails');
          await tx
            .insertInto('item')
            .values({ id: 100 + i, label: 'y' })
            .execute();
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    const ids = (await db.selectFrom('item').select('id').orderBy('id').execute()).map((r) => r.id);
    expect(ids).not.toContain(4);
    expect(ids).not.toContain(104);
    expect(ids).toHaveLength(18);
  });

  it('a unique violation keeps SQLite’s code, inside and outside a transaction, and spoils nothing else', async () => {
    await db.insertInto('item').values({ id: 1, label: 'first' }).execute();
    const alone = await db
      .insertInto('item')
      .values({ id: 1, label: 'again' })
      .execute()
      .catch((e: unknown) => e);
    expect(isUniqueViolation(alone)).toBe(true);
    const inside = await db
      .transaction()
      .execute(async (tx) => {
        await tx.insertInto('item').values({ id: 2, label: 'two' }).execute();
        await tx.insertInto('item').values({ id: 1, label: 'again' }).execute();
      })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(inside)).toBe(true);
    expect(await db.selectFrom('item').select(['id', 'label']).execute()).toEqual([{ id: 1, label: 'first' }]);
  });

  it('reads outside a transaction see only committed data; a writer continues only once its commit is done', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let committed = false;
    const unit = db
      .transaction()
      .execute(async (tx) => {
        await tx.insertInto('item').values({ id: 7, label: 'pending' }).execute();
        // Inside its own transaction the unit reads its write.
        expect(await tx.selectFrom('item').select('id').execute()).toEqual([{ id: 7 }]);
        await held;
      })
      .then(() => {
        committed = true;
      });
    await new Promise((r) => setTimeout(r, 20));
    expect(await db.selectFrom('item').select('id').execute()).toEqual([]);
    expect(committed).toBe(false);
    release();
    await unit;
    expect(await db.selectFrom('item').select('id').execute()).toEqual([{ id: 7 }]);
  });

  it('reads on the read connection answer the rows better-sqlite3 itself builds: names, values, types, order', async () => {
    await db
      .insertInto('item')
      .values([
        { id: 2, label: 'b' },
        { id: 1, label: 'a' },
      ])
      .execute();
    const read = db
      .selectFrom('item')
      .select([
        'id',
        'label',
        sql<number>`id * 1.5`.as('half'),
        sql<null>`null`.as('absent'),
        sql<Buffer>`x'00ff'`.as('bytes'),
        sql<string>`label`.as('id'),
      ])
      .orderBy(sql`item.id`);
    const compiled = read.compile();
    const expected = new SQLite(file, { readonly: true }).prepare(compiled.sql).all(compiled.parameters as unknown[]);
    expect(expected).toEqual([
      { id: 'a', label: 'a', half: 1.5, absent: null, bytes: Buffer.from([0, 255]) },
      { id: 'b', label: 'b', half: 3, absent: null, bytes: Buffer.from([0, 255]) },
    ]);
    expect(await read.execute()).toEqual(expected);
    expect(await db.selectFrom('item').selectAll().where('id', '>', 5).execute()).toEqual([]);
  });

  it('rowObjects keys raw rows by column name, a repeated name keeping the later column', () => {
    expect(
      rowObjects(
        ['a', 'b', 'a'],
        [
          [1, 'x', 3],
          [4, null, 6],
        ],
      ),
    ).toEqual([
      { a: 3, b: 'x' },
      { a: 6, b: null },
    ]);
    expect(rowObjects(['a'], [])).toEqual([]);
  });

  it('keeps synchronous=FULL and WAL on the write connection, its savepoints journal in memory and its page cache is 8 MB', async () => {
    // Read through the writer (a transaction): the writer's own settings.
    const settings = await db.transaction().execute(async (tx) => ({
      synchronous: (await sql<{ synchronous: number }>`pragma synchronous`.execute(tx)).rows[0]?.synchronous,
      journal: (await sql<{ journal_mode: string }>`pragma journal_mode`.execute(tx)).rows[0]?.journal_mode,
      tempStore: (await sql<{ temp_store: number }>`pragma temp_store`.execute(tx)).rows[0]?.temp_store,
      cacheSize: (await sql<{ cache_size: number }>`pragma cache_size`.execute(tx)).rows[0]?.cache_size,
    }));
    // 2 = FULL; temp_store 2 = MEMORY: each unit's savepoint sub-journal is never a temporary file; cache_size -8000 =
    // 8,000 KiB of page cache (better-sqlite3's default is 16,000).
    expect(settings).toEqual({ synchronous: 2, journal: 'wal', tempStore: 2, cacheSize: -8000 });
  });

  it('a transaction of deferrable writes costs no synchronous round trip: it goes to the writer with the COMMIT', async () => {
    const before = { ...dialect.driver.stats };
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        db.transaction().execute(async (tx) => {
          await tx.executeQuery(deferrable(tx.insertInto('item').values({ id: i, label: 'a' }).compile()));
          await tx.executeQuery(deferrable(tx.updateTable('item').set({ label: 'b' }).where('id', '=', i).compile()));
        }),
      ),
    );
    expect(dialect.driver.stats.syncCalls - before.syncCalls).toBe(0);
    expect(dialect.driver.stats.commits - before.commits).toBeLessThan(20);
    const other = new SQLite(file, { readonly: true });
    expect(other.prepare("select count(*) as n from item where label = 'b'").get()).toEqual({ n: 20 });
    other.close();
  });

  it('a failing deferrable write fails its own transaction (all of it) at commit; the rest of the batch commits', async () => {
    await db.insertInto('item').values({ id: 1, label: 'first' }).execute();
    const results = await Promise.allSettled([
      db.transaction().execute(async (tx) => {
        await tx.executeQuery(deferrable(tx.insertInto('item').values({ id: 50, label: 'x' }).compile()));
        await tx.executeQuery(deferrable(tx.insertInto('item').values({ id: 1, label: 'dup' }).compile()));
      }),
      db.transaction().execute(async (tx) => {
        await tx.executeQuery(deferrable(tx.insertInto('item').values({ id: 60, label: 'y' }).compile()));
      }),
      db.insertInto('item').values({ id: 70, label: 'z' }).execute(),
    ]);
    expect(results[0].status).toBe('rejected');
    expect(isUniqueViolation((results[0] as PromiseRejectedResult).reason)).toBe(true);
    expect(results.slice(1).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    const ids = (await db.selectFrom('item').select('id').orderBy('id').execute()).map((r) => r.id);
    expect(ids).toEqual([1, 60, 70]);
  });

  it('a transaction that reads mid-way sees the queued writes of earlier units and its own deferred ones', async () => {
    const first = db.insertInto('item').values({ id: 5, label: 'queued' }).execute();
    const seen = await db.transaction().execute(async (tx) => {
      await tx.executeQuery(deferrable(tx.insertInto('item').values({ id: 6, label: 'mine' }).compile()));
      return (await tx.selectFrom('item').select('id').orderBy('id').execute()).map((r) => r.id);
    });
    await first;
    expect(seen).toEqual([5, 6]);
  });

  // Without it, every unit of the same turn waited for one COMMIT, and the requests it released for the next: the event
  // loop and the writer took turns (docs/decisions.md, "Two batches with the writer").
  it(`sends a batch once it holds ${EAGER_BATCH_UNITS} units, ${COMMITS_IN_FLIGHT} at a time; the rest goes when the writer answers`, async () => {
    const before = { ...dialect.driver.stats };
    const units = 5 * EAGER_BATCH_UNITS;
    // All in one turn of the event loop: the writer answers nothing before every unit has joined.
    await Promise.all(
      Array.from({ length: units }, (_, i) => db.insertInto('item').values({ id: i, label: 'x' }).execute()),
    );
    expect(dialect.driver.stats.units - before.units).toBe(units);
    // EAGER_BATCH_UNITS, EAGER_BATCH_UNITS, then the other 3 × EAGER_BATCH_UNITS once the first COMMIT is answered.
    expect(dialect.driver.stats.commits - before.commits).toBe(COMMITS_IN_FLIGHT + 1);
    const other = new SQLite(file, { readonly: true });
    expect(other.prepare('select count(*) as n from item').get()).toEqual({ n: units });
    other.close();
  });

  it('a transaction that reads mid-way while COMMITs are with the writer waits for them and sees their writes', async () => {
    const writes = Array.from({ length: 2 * EAGER_BATCH_UNITS + 3 }, (_, i) =>
      db.insertInto('item').values({ id: i, label: 'x' }).execute(),
    );
    const seen = await db.transaction().execute(async (tx) => {
      const { n } = await tx
        .selectFrom('item')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return n;
    });
    await Promise.all(writes);
    expect(seen).toBe(writes.length);
  });

  // Checkpoints beside the writer (sqlite-checkpointer.ts): SQLite's automatic checkpoint runs inside the COMMIT that
  // takes the WAL past 1,000 pages; Kassa copies committed pages into the database file from a thread of its own.
  it('copies committed pages into the database file well before the WAL reaches 1,000 pages', async () => {
    const checkpointer = dialect.driver.checkpointer;
    if (checkpointer === undefined) throw new Error('a file database has a checkpointer');
    const sizeBefore = statSync(file).size;
    // ~100 pages of rows: far below the automatic checkpoint's 1,000, so only the checkpointer moves them.
    for (let i = 0; i < 10; i++) {
      await db
        .insertInto('item')
        .values(Array.from({ length: 40 }, (_, j) => ({ id: i * 40 + j, label: 'x'.repeat(1000) })))
        .execute();
    }
    await vi.waitFor(
      () => {
        expect(checkpointer.stats.walFrames).toBeGreaterThan(0);
        expect(checkpointer.stats.checkpointedFrames).toBe(checkpointer.stats.walFrames);
      },
      { timeout: 5000, interval: 50 },
    );
    expect(checkpointer.stats.walFrames).toBeLessThan(1000);
    expect(statSync(file).size).toBeGreaterThan(sizeBefore + 90 * 4096); // the rows are in the database file
    expect(checkpointer.lastError).toBeUndefined();
    const count = await db
      .selectFrom('item')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    expect(count).toEqual({ n: 400 });
  });
});
