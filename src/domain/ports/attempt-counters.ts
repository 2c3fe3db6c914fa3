/**
 * Counters of attempts in fixed windows, shared by every node when the adapter is (Redis, the database): the
 * authentication failure limit and the card-testing velocity limits count through it. Keys are opaque strings chosen
 * by the caller (never a card number: callers pass keyed fingerprints). A window of `windowMs` milliseconds starts
 * at every multiple of `windowMs` since the Unix epoch, as `@fastify/rate-limit`'s stores count.
 */
export interface AttemptCounters {
  /** Attempts counted for `key` in the window of `windowMs` that contains `now`. */
  count(key: string, windowMs: number, now: Date): Promise<number>;
  /** Counts one attempt for `key`; returns the new count in the window of `windowMs` that contains `now`. */
  hit(key: string, windowMs: number, now: Date): Promise<number>;
}

/** Start of the fixed window of `windowMs` that contains `now`, in Unix milliseconds. */
export function windowStart(windowMs: number, now: Date): number {
  return now.getTime() - (now.getTime() % windowMs);
}
