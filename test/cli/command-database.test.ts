import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../src/storage/migrations/index.js';
import { kassaCli, kassaCliResult } from '../helpers/cli.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const names = Object.keys(migrations);
/** The migration before the newest: a rollback of one release step. */
const earlier = names.at(-2) as string;

describe.each(DIALECTS)('kassa commands other than migrate and serve (%s)', (dialect) => {
  let database: FreshDatabase;
  afterEach(async () => {
    await database?.drop();
  });

  function envFor(db: FreshDatabase): Record<string, string> {
    const dir = mkdtempSync(join(tmpdir(), 'kassa-schema-'));
    dataDirs.push(dir);
    return { DATABASE_URL: db.url, KASSA_DATA_DIR: dir, LOG_LEVEL: 'warn' };
  }

  async function applied(): Promise<{ name: string; timestamp: string }[]> {
    const { rows } = await sql<{ name: string; timestamp: string }>`
      select name, timestamp from kysely_migration order by name`.execute(database.db.kysely);
    return rows.map((r) => ({ name: r.name, timestamp: String(r.timestamp) }));
  }

  // An operator's rollback (`kassa migrate --to`, docs/operations.md "Upgrades") must survive a support-desk command:
  // before, every command migrated to the latest schema, undoing the rollback under the older release's nodes.
  it('after `migrate --to` an earlier migration, `merchant key list` refuses in one line naming `kassa migrate` and applies nothing', async () => {
    database = await freshDatabase(dialect);
    const env = envFor(database);
    await kassaCli(['migrate'], env);
    await kassaCli(['merchant', 'create', '--id', 'shop-1', '--country', 'DK', '--currency', 'DKK'], env);
    await kassaCli(['migrate', '--to', earlier], env);
    const before = await applied();
    expect(before.map((m) => m.name)).not.toContain(names.at(-1));

    const refused = await kassaCliResult(['merchant', 'key', 'list', 'shop-1'], env);
    expect(await applied()).toEqual(before);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(
      `is behind this release of Kassa (1 of its migrations not applied, the newest ${names.at(-1)})`,
    );
    expect(refused.stderr).toContain('run `kassa migrate` first');

    await kassaCli(['migrate'], env);
    const listed = await kassaCliResult(['merchant', 'key', 'list', 'shop-1', '--json'], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).keys).toHaveLength(1);
  }, 180_000);

  it('a new, empty database gets the schema from the first command, which says so on stderr', async () => {
    database = await freshDatabase(dialect);
    const env = envFor(database);
    const created = await kassaCliResult(
      ['merchant', 'create', '--id', 'shop-1', '--country', 'DK', '--currency', 'DKK', '--json'],
      env,
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).merchantId).toBe('shop-1');
    expect(created.stderr).toContain('created the schema of the new database');
    expect((await applied()).map((m) => m.name)).toEqual([...names].sort());
  }, 180_000);
});
