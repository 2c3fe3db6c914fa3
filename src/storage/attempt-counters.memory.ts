import { type AttemptCounters, windowStart } from '../domain/ports/attempt-counters.js';

/** Keys kept before windows already passed are dropped. */
const PRUNE_ABOVE_KEYS = 100_000;

/**
 * One process's attempt counters (tests, and a single SQLite node that wants no writes for them). Old windows are
 * dropped as they are passed. Several nodes need `KyselyAttemptCounters` or `RedisAttemptCounters`.
 */
export class InMemoryAttemptCounters implements AttemptCounters {
  private readonly windows = new Map<string, { start: number; end: number; count: number }>();

  private current(key: string, windowMs: number, now: Date) {
    const start = windowStart(windowMs, now);
    const id = `${key}@${windowMs}`;
    const w = this.windows.get(id);
    if (w && w.start === start) return w;
    if (this.windows.size > PRUNE_ABOVE_KEYS) this.prune(now.getTime());
    const fresh = { start, end: start + windowMs, count: 0 };
    this.windows.set(id, fresh);
    return fresh;
  }

  private prune(now: number): void {
    for (const [k, w] of this.windows) if (w.end <= now) this.windows.delete(k);
  }

  async count(key: string, windowMs: number, now: Date): Promise<number> {
    return this.current(key, windowMs, now).count;
  }

  async hit(key: string, windowMs: number, now: Date): Promise<number> {
    const w = this.current(key, windowMs, now);
    w.count++;
    return w.count;
  }
}
