import { type Kysely, SqliteAdapter } from 'kysely';
import { isoTime } from '../domain/ports/clock.js';
import type { Database } from './database.js';

/** ISO 8601 text of a Date, as stored in every time column. */
export const toDbTime = (d: Date): string => isoTime(d);
/** Parses a time column. */
export const fromDbTime = (s: string): Date => new Date(s);
/** JSON column writer: undefined → NULL. */
export const toJson = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));
/** JSON column reader: NULL → undefined. */
export const fromJson = <T>(s: string | null): T | undefined => (s === null ? undefined : (JSON.parse(s) as T));
/** Text column reader: NULL → undefined. */
export const optional = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

/**
 * A select's row lock until its transaction ends, for `.$call(rowLock(db))`: `FOR UPDATE` on PostgreSQL; nothing on
 * SQLite, which has no row locks and needs none (Kysely's SqliteDialect holds its one connection for a whole
 * transaction, so transactions run one at a time).
 */
export function rowLock(db: Kysely<Database>): <Q extends { forUpdate(): Q }>(query: Q) => Q {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  return (query) => (sqlite ? query : query.forUpdate());
}
