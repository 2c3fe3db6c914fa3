import { type Kysely, sql } from 'kysely';
import { type AttemptCounters, windowStart } from '../domain/ports/attempt-counters.js';
import type { Database } from './database.js';

/** Counters whose window ended this long ago are deleted, at most once per this interval (ms). */
const CLEANUP_EVERY_MS = 60_000; // 1 min

/**
 * The `rate_limit_counter` row of an attempt counter: key `a:<key>@<window ms>:<window start>`, `resetAt` the window's
 * end (Unix ms).
 */
export function attemptRowKey(key: string, windowMs: number, now: Date): { key: string; resetAt: number } {
  const start = windowStart(windowMs, now);
  return { key: `a:${key}@${windowMs}:${start}`, resetAt: start + windowMs };
}

/** The window's end (Unix ms) of an attempt counter row key made by `attemptRowKey`; undefined for another key. */
export function attemptRowResetAt(rowKey: string): number | undefined {
  const m = /@(\d+):(\d+)$/.exec(rowKey);
  return m ? Number(m[1]) + Number(m[2]) : undefined;
}

/**
 * Attempt counters in the database's `rate_limit_counter` table, so that every node on one PostgreSQL counts
 * against the same limit (issue 14) and counts survive a restart. One row per key and window
 * (`a:<key>@<window start>`, `reset_at` = the window's end, Unix ms); one upsert per attempt.
 */
export class KyselyAttemptCounters implements AttemptCounters {
  private lastCleanup = 0;

  constructor(private readonly db: Kysely<Database>) {}

  async count(key: string, windowMs: number, now: Date): Promise<number> {
    const row = await this.db
      .selectFrom('rate_limit_counter')
      .select('count')
      .where('key', '=', attemptRowKey(key, windowMs, now).key)
      .executeTakeFirst();
    return row ? Number(row.count) : 0;
  }

  async hit(key: string, windowMs: number, now: Date): Promise<number> {
    const { key: rowKey, resetAt } = attemptRowKey(key, windowMs, now);
    const row = await this.db
      .insertInto('rate_limit_counter')
      .values({ key: rowKey, count: 1, reset_at: resetAt })
      .onConflict((oc) => oc.column('key').doUpdateSet({ count: sql<number>`rate_limit_counter.count + 1` }))
      .returning('count')
      .executeTakeFirstOrThrow();
    this.cleanup(now.getTime());
    return Number(row.count);
  }

  private cleanup(at: number): void {
    if (at - this.lastCleanup < CLEANUP_EVERY_MS) return;
    this.lastCleanup = at;
    this.db
      .deleteFrom('rate_limit_counter')
      .where('key', 'like', 'a:%')
      .where('reset_at', '<', at)
      .execute()
      .catch(() => {}); // retried at the next interval
  }
}
