import { Migrator } from 'kysely';
import { type Config, describeDatabaseLocation } from '../config/config.js';
import { openDatabase } from '../services.js';
import { type Db, migrateToLatest } from '../storage/create-db.js';
import { migrations } from '../storage/migrations/index.js';
import { CliError } from './cli-failure.js';

/**
 * Opens the database for `kassa migrate`, which runs `migrate` on it (up, or `--to` a named migration).
 * @throws CliError naming the database (password masked) and what failed: unreachable, refused, a failing migration.
 */
export async function openForMigration(config: Config, migrate: (db: Db) => Promise<unknown>): Promise<Db> {
  try {
    return await openDatabase(config, undefined, migrate);
  } catch (error) {
    throw new CliError((error as Error).message, 1, { cause: error });
  }
}

/**
 * Opens the database for a command other than `kassa migrate` and `kassa serve`, which alone change the schema: a
 * support-desk command must not undo an operator's `kassa migrate --to` rollback, nor run a contract migration while
 * nodes of the previous release still serve (docs/operations.md, "Upgrades"). A database with no Kassa migration
 * at all gets the schema (nothing there to roll back, no node running on it; `merchant create` before the first
 * start, README); one whose schema is behind this release is refused.
 * @throws CliError when the database cannot be opened, or when it has pending migrations (run `kassa migrate`).
 */
export async function openForCommand(config: Config): Promise<Db> {
  let pending: string[] = [];
  let created: string[] = [];
  const db = await openForMigration(config, async (opened) => {
    const migrator = new Migrator({ db: opened.kysely, provider: { getMigrations: async () => migrations } });
    const known = await migrator.getMigrations();
    pending = known.filter((m) => m.executedAt === undefined).map((m) => m.name);
    if (pending.length === known.length) {
      created = await migrateToLatest(opened);
      pending = [];
    }
  });
  if (created.length > 0) {
    console.error(`created the schema of the new database at ${describeDatabaseLocation(config)}`);
  }
  if (pending.length > 0) {
    await db.close();
    const latest = pending[pending.length - 1];
    throw new CliError(
      `the database at ${describeDatabaseLocation(config)} is behind this release of Kassa (${pending.length} of its migrations not applied, the newest ${latest}): run \`kassa migrate\` first (after a \`kassa migrate --to\` rollback, use the previous release's kassa)`,
    );
  }
  return db;
}
