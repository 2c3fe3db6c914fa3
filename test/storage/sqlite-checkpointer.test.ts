import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Generated, Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteGroupCommitDialect } from '../../src/storage/sqlite-group-commit.js';

interface Db {
  item: { id: Generated<number>; label: string };
}

/**
 * Checkpoints beside the writer (issue 12): SQLite's automatic checkpoint runs inside the COMMIT that takes the WAL
 * past 1,000 pages; Kassa copies committed pages into the database file from a thread of its own instead.
 */
describe('SQLite checkpointer', () => {
  let dir: string;
  let file: string;
  let dialect: SqliteGroupCommitDialect;
  let db: Kysely<Db>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kassa-ckpt-'));
    file = join(dir, 'ckpt.db');
    dialect = new SqliteGroupCommitDialect(file);
    db = new Kysely<Db>({ dialect });
    await sql`create table item (id integer primary key, label text not null)`.execute(db);
  });

  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies committed pages into the database file well before the WAL reaches 1,000 pages', async () => {
    const checkpointer = dialect.driver.checkpointer;
    if (checkpointer === undefined) throw new Error('a file database has a checkpointer');
    const sizeBefore = statSync(file).size;
    // ~100 pages of rows: far below the automatic checkpoint's 1,000, so only the checkpointer moves them.
    for (let i = 0; i < 10; i++) {
      await db
        .insertInto('item')
        .values(Array.from({ length: 40 }, () => ({ label: 'x'.repeat(1000) })))
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
    expect(
      await db
        .selectFrom('item')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst(),
    ).toEqual({
      n: 400,
    });
  });
});
