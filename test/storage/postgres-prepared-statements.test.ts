import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/storage/create-db.js';
import { PREPARED_STATEMENTS_MAX, StatementNames } from '../../src/storage/postgres-prepared-statements.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';

interface Tables {
  item: { id: number; label: string };
}

/** The statements prepared on the connection `db` runs on (one connection: a transaction's). */
async function preparedOn(db: Kysely<Tables>): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db);
  return rows.map((r) => r.statement);
}

describe('StatementNames', () => {
  it('names a text the same each time, and stops naming past the cap', () => {
    const names = new StatementNames();
    const first = names.of('select 1');
    expect(first).toMatch(/^k0_/);
    expect(names.of('select 1')).toBe(first);
    for (let i = 0; names.of(`select ${i + 2}`) !== undefined; i++) expect(i).toBeLessThan(PREPARED_STATEMENTS_MAX);
    expect(names.of('select -1')).toBeUndefined();
    expect(names.of('select 1')).toBe(first); // named ones keep their name
    names.renew();
    expect(names.of('select 1')).toMatch(/^k1_/);
  });
});

describe.runIf(DIALECTS.includes('postgres'))('PostgreSQL named prepared statements (issue 12)', () => {
  let target: FreshDatabase;
  let db: Kysely<Tables>;
  let unnamed: Db;

  beforeAll(async () => {
    target = await freshDatabase('postgres');
    db = target.db.kysely as unknown as Kysely<Tables>;
    await sql`create table item (id integer primary key, label text not null)`.execute(db);
    await db
      .insertInto('item')
      .values([
        { id: 1, label: 'a' },
        { id: 2, label: 'b' },
      ])
      .execute();
    unnamed = createDb({ dialect: 'postgres', url: target.url, poolSize: 1, preparedStatements: false });
  });
  afterAll(async () => {
    await unnamed?.close();
    await target?.drop();
  });

  const labelOf = (k: Kysely<Tables>, id: number) =>
    k.selectFrom('item').select('label').where('id', '=', id).executeTakeFirst();

  it('runs a statement as a prepared one, planned once per connection, with each call’s values', async () => {
    await db.transaction().execute(async (tx) => {
      expect(await labelOf(tx, 1)).toEqual({ label: 'a' });
      expect(await labelOf(tx, 2)).toEqual({ label: 'b' });
      const prepared = await preparedOn(tx);
      expect(prepared.filter((s) => s === 'select "label" from "item" where "id" = $1')).toHaveLength(1);
    });
  });

  it('with KASSA_POSTGRES_PREPARED=off nothing is prepared', async () => {
    const k = unnamed.kysely as unknown as Kysely<Tables>;
    await k.transaction().execute(async (tx) => {
      expect(await labelOf(tx, 1)).toEqual({ label: 'a' });
      expect(await preparedOn(tx)).toEqual([]);
    });
  });

  it('a column added under a prepared `select *` (another node migrating) fails the statement once, then serves it', async () => {
    const all = () => db.selectFrom('item').selectAll().where('id', '=', 1).executeTakeFirst();
    const second = createDb({ dialect: 'postgres', url: target.url, poolSize: 1 }); // the migrating node
    try {
      // Every connection of the pool has prepared it.
      await Promise.all(Array.from({ length: 10 }, () => all()));
      await sql`alter table item add column note text`.execute(second.kysely);
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => all()));
      const failed = results.filter((r) => r.status === 'rejected').map((r) => (r.reason as { code?: string }).code);
      expect(new Set(failed)).toEqual(new Set(failed.length > 0 ? ['0A000'] : []));
      expect(await all()).toEqual({ id: 1, label: 'a', note: null });
    } finally {
      await second.close();
    }
  });
});
