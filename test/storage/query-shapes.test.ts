import { Kysely } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import { definedEntries, shaped } from '../../src/storage/query-shapes.js';
import { SqliteGroupCommitDialect } from '../../src/storage/sqlite-group-commit.js';

/** Compiled-once query shapes (issue 12: no Kysely building and compilation per request on the hot path). */
describe('query shapes', () => {
  // Compiling needs no connection: the dialect is never initialized here.
  const db = new Kysely<Database>({ dialect: new SqliteGroupCommitDialect(':memory:') });

  it('builds and compiles a shape once, then reuses its SQL with the new parameters', () => {
    const build = vi.fn((payId: string) => db.selectFrom('payment').select('status').where('pay_id', '=', payId));
    const first = shaped(db, 'test.status', ['a'.repeat(32)], () => build('a'.repeat(32)));
    const second = shaped(db, 'test.status', ['b'.repeat(32)], () => build('b'.repeat(32)));
    expect(build).toHaveBeenCalledTimes(1);
    expect(second.sql).toBe(first.sql);
    expect(second.parameters).toEqual(['b'.repeat(32)]);
    expect(second.query).toBe(first.query); // the driver routes selects to the read connection by it
  });

  it('refuses parameters that are not in the compiled order', () => {
    expect(() =>
      shaped(db, 'test.order', ['DONE', 'x'], () =>
        db.updateTable('three_ds_transaction').set({ phase: 'DONE' }).where('pay_id', '=', 'x'),
      ),
    ).not.toThrow();
    expect(() =>
      shaped(db, 'test.wrong-order', ['x', 'DONE'], () =>
        db.updateTable('three_ds_transaction').set({ phase: 'DONE' }).where('pay_id', '=', 'x'),
      ),
    ).toThrow(/not in the compiled order/);
  });

  it('definedEntries leaves out undefined columns as Kysely does, keeping the order', () => {
    expect(definedEntries({ a: 1, b: undefined, c: null, d: 'x' })).toEqual({ key: 'a,c,d', values: [1, null, 'x'] });
  });
});
