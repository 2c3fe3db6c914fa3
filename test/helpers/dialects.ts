import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { createDb, type Db, type DialectName } from '../../src/storage/create-db.js';

/** The dialects this run tests (global-setup decides: DIALECTS env, or SQLite plus PostgreSQL when reachable). */
export const DIALECTS: DialectName[] = inject('dialects');

/** A fresh, empty database of a dialect: a temp SQLite file, or a new PostgreSQL database dropped on `drop()`. */
export interface FreshDatabase {
  db: Db;
  /** DATABASE_URL of this database (for child processes such as the CLI). */
  url: string;
  /** SQLite: the database file. */
  file?: string;
  drop(): Promise<void>;
}

/**
 * `adminUrl`: another PostgreSQL server than the run's (a test that restarts its own cluster). `listen`: PostgreSQL's
 * credentials listener connection (KASSA_POSTGRES_LISTEN=on).
 */
export async function freshDatabase(
  dialect: DialectName,
  adminUrl = inject('postgresUrl'),
  { listen = false } = {},
): Promise<FreshDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'kassa-db-'));
    const file = join(dir, 'kassa.db');
    const db = createDb({ dialect: 'sqlite', file });
    return {
      db,
      url: `sqlite:${file}`,
      file,
      drop: async () => {
        await db.close().catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `kassa_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = createDb({ dialect: 'postgres', url: url.toString(), poolSize: 5, listen });
  return {
    db,
    url: url.toString(),
    drop: async () => {
      await db.close().catch(() => {});
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
