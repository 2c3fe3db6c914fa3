import { type Kysely, sql } from 'kysely';
import { isTimeout } from '../domain/ports/deadline.js';
import type { Database } from './database.js';

/** How the rate-limit plugin reports a key's state: requests in the window, ms until it resets. */
export interface RateLimitState {
  current: number;
  ttl: number;
}

type Callback = (error: Error | null, state?: RateLimitState) => void;

/** Delete counters whose window ended this long ago, at most once per this interval. */
const CLEANUP_EVERY_MS = 60_000; // 1 min

/**
 * A `@fastify/rate-limit` store over Kassa's database (the `store` option: a constructor), so that every node on one
 * PostgreSQL counts against the same limit (issue 14; without Redis). One upsert per request: a key's counter starts
 * at 1 with a new window, or adds 1 inside the current one. Fixed windows, as the plugin's local and Redis stores.
 * A counter that cannot be read lets the request through (a limiter outage must not take the API down with it), except
 * when the read timed out (isTimeout: `KASSA_POSTGRES_QUERY_TIMEOUT`, the connect timeout): the database is silent,
 * so the request's own reads would wait out a deadline of their own too; it fails at once instead (503). Register the
 * plugin with `skipOnError: false` so that the error reaches the route.
 */
export function kyselyRateLimitStore(db: Kysely<Database>, now: () => number = Date.now) {
  let lastCleanup = 0;
  return class KyselyRateLimitStore {
    constructor(private readonly routeOptions: { nameSpace?: string } = {}) {}

    incr(key: string, callback: Callback, timeWindow: number): void {
      const at = now();
      const fullKey = `${this.routeOptions.nameSpace ?? ''}${key}`;
      const resetAt = at + timeWindow;
      db.insertInto('rate_limit_counter')
        .values({ key: fullKey, count: 1, reset_at: resetAt })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            count: sql<number>`case when rate_limit_counter.reset_at <= ${at} then 1 else rate_limit_counter.count + 1 end`,
            reset_at: sql<number>`case when rate_limit_counter.reset_at <= ${at} then ${resetAt} else rate_limit_counter.reset_at end`,
          }),
        )
        .returning(['count', 'reset_at'])
        .executeTakeFirstOrThrow()
        .then(
          (row) => callback(null, { current: Number(row.count), ttl: Math.max(0, Number(row.reset_at) - at) }),
          (error: Error) =>
            isTimeout(error) ? callback(error) : callback(null, { current: 0, ttl: Math.max(0, resetAt - at) }),
        );
      if (at - lastCleanup > CLEANUP_EVERY_MS) {
        lastCleanup = at;
        db.deleteFrom('rate_limit_counter')
          .where('reset_at', '<', at - CLEANUP_EVERY_MS)
          .execute()
          .catch(() => {}); // retried at the next interval
      }
    }

    /** The store of one route (or one `createRateLimit` limiter): its keys are prefixed with the route's URL. */
    child(routeOptions: unknown) {
      const { url, method } = (routeOptions ?? {}) as { url?: unknown; method?: unknown };
      const route = typeof url === 'string' ? `${String(method ?? '')}${url}:` : '';
      return new KyselyRateLimitStore({ nameSpace: `kassa-rl-${route}` });
    }
  };
}
