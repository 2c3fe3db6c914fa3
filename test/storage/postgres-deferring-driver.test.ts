import { CompiledQuery, type Kysely, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { deferrable } from '../../src/storage/deferrable.js';
import { combineWrites } from '../../src/storage/postgres-deferring-driver.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { spyOnStatements } from '../helpers/pg-queries.js';

describe('combineWrites', () => {
  it('joins statements into one WITH, renumbering each one’s placeholders after the ones before it', () => {
    const joined = combineWrites([
      CompiledQuery.raw('insert into a (x, y) values ($1, $2)', [1, 2]),
      CompiledQuery.raw('update b set x = $1 where id = $2', [3, 4]),
      CompiledQuery.raw('insert into c (x) values ($1)', [5]),
    ]);
    expect(joined.sql).toBe(
      'with w0 as (insert into a (x, y) values ($1, $2)), w1 as (update b set x = $3 where id = $4) ' +
        'insert into c (x) values ($5)',
    );
    expect(joined.parameters).toEqual([1, 2, 3, 4, 5]);
  });

  it('sends a single statement as it is', () => {
    const q = CompiledQuery.raw('insert into a (x) values ($1)', [1]);
    expect(combineWrites([q])).toBe(q);
  });
});

interface Db {
  item: { id: number; label: string };
}

/** Round trips to the server: every query the pg client sends. */
const countQueries = spyOnStatements;

describe.runIf(DIALECTS.includes('postgres'))('PostgreSQL deferring driver (issue 12)', () => {
  let target: FreshDatabase;
  let db: Kysely<Db>;

  beforeAll(async () => {
    target = await freshDatabase('postgres');
    db = target.db.kysely as unknown as Kysely<Db>;
    await sql`create table item (id integer primary key, label text not null)`.execute(db);
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    await sql`delete from item`.execute(db);
  });

  afterAll(async () => target?.drop());

  const insert = (tx: Kysely<Db>, id: number, label = 'a') =>
    tx.executeQuery(deferrable(tx.insertInto('item').values({ id, label }).compile()));
  const labels = async () => (await db.selectFrom('item').select(['id', 'label']).orderBy('id').execute()) ?? [];

  it('sends a transaction of deferrable writes as ONE statement, without BEGIN and COMMIT', async () => {
    const queries = countQueries();
    await db.transaction().execute(async (tx) => {
      await insert(tx, 1);
      await insert(tx, 2);
      await tx.executeQuery(deferrable(tx.updateTable('item').set({ label: 'b' }).where('id', '=', 7).compile()));
    });
    const sent = queries.texts();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^with w0 as \(insert/);
    queries.restore();
    expect(await labels()).toEqual([
      { id: 1, label: 'a' },
      { id: 2, label: 'a' },
    ]);
  });

  it('stores nothing of a transaction whose deferrable write fails, and the caller gets the error', async () => {
    await insert(db, 5);
    await expect(
      db.transaction().execute(async (tx) => {
        await insert(tx, 6);
        await insert(tx, 5); // duplicate key
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await labels()).toEqual([{ id: 5, label: 'a' }]);
  });

  it('a read after deferrable writes sees them: BEGIN, the writes, the read, COMMIT', async () => {
    const queries = countQueries();
    const seen = await db.transaction().execute(async (tx) => {
      await insert(tx, 1);
      await insert(tx, 2);
      return tx.selectFrom('item').select('id').orderBy('id').execute();
    });
    expect(seen).toEqual([{ id: 1 }, { id: 2 }]);
    expect(queries.texts().map((t) => t.split(' ')[0])).toEqual(['begin', 'with', 'select', 'commit']);
  });

  it('two updates of one table go in order, one after the other (never one row twice in a statement)', async () => {
    await insert(db, 1);
    const queries = countQueries();
    await db.transaction().execute(async (tx) => {
      await tx.executeQuery(deferrable(tx.updateTable('item').set({ label: 'first' }).where('id', '=', 1).compile()));
      await tx.executeQuery(deferrable(tx.updateTable('item').set({ label: 'second' }).where('id', '=', 1).compile()));
    });
    expect(queries.texts().map((t) => t.split(' ')[0])).toEqual(['begin', 'update', 'update', 'commit']);
    queries.restore();
    expect(await labels()).toEqual([{ id: 1, label: 'second' }]);
  });

  it('sends nothing for a transaction that throws before anything needed the server', async () => {
    const queries = countQueries();
    await expect(
      db.transaction().execute(async (tx) => {
        await insert(tx, 9);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(queries.spy).not.toHaveBeenCalled();
    queries.restore();
    expect(await labels()).toEqual([]);
  });
});
