import type { Redis } from 'ioredis';
import { type AttemptCounters, windowStart } from '../domain/ports/attempt-counters.js';

/**
 * Attempt counters in Redis (`KASSA_REDIS_URL`), shared by every node: one key per counter and window
 * (`kassa-ac:<key>@<window ms>:<window start>`), INCR then PEXPIRE one window after the window's end (clock skew
 * between nodes), in one MULTI.
 */
export class RedisAttemptCounters implements AttemptCounters {
  constructor(private readonly redis: Redis) {}

  private redisKey(key: string, windowMs: number, now: Date): { key: string; ttlMs: number } {
    const start = windowStart(windowMs, now);
    // Kept one window past its end: a node whose clock lags a little still counts into this window's key.
    return { key: `kassa-ac:${key}@${windowMs}:${start}`, ttlMs: start + 2 * windowMs - now.getTime() };
  }

  async count(key: string, windowMs: number, now: Date): Promise<number> {
    const value = await this.redis.get(this.redisKey(key, windowMs, now).key);
    return value === null ? 0 : Number(value);
  }

  async hit(key: string, windowMs: number, now: Date): Promise<number> {
    const { key: redisKey, ttlMs } = this.redisKey(key, windowMs, now);
    const results = await this.redis.multi().incr(redisKey).pexpire(redisKey, ttlMs).exec();
    const [incrError, count] = results?.[0] ?? [new Error('Redis MULTI answered nothing')];
    if (incrError) throw incrError;
    return Number(count);
  }
}
