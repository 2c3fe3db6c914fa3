/**
 * Counters of failed attempts in a fixed window, behind a small interface so that a shared store (Redis, the
 * database) can replace the in-memory one for several nodes. Keys are opaque strings chosen by the caller.
 */
export interface AttemptCounterStore {
  /** Failures counted for `key` in the window containing `now`. */
  count(key: string, now: Date): Promise<number>;
  /** Counts one failure for `key`; returns the new count in the window containing `now`. */
  hit(key: string, now: Date): Promise<number>;
}

/** One process's counters, fixed windows of `windowMs`; old windows are dropped as they are passed. */
export class InMemoryAttemptCounters implements AttemptCounterStore {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly windowMs: number) {}

  private current(key: string, now: Date) {
    const start = now.getTime() - (now.getTime() % this.windowMs);
    const w = this.windows.get(key);
    if (w && w.start === start) return w;
    if (this.windows.size > 100_000) this.prune(start);
    const fresh = { start, count: 0 };
    this.windows.set(key, fresh);
    return fresh;
  }

  private prune(start: number): void {
    for (const [k, w] of this.windows) if (w.start < start) this.windows.delete(k);
  }

  async count(key: string, now: Date): Promise<number> {
    return this.current(key, now).count;
  }

  async hit(key: string, now: Date): Promise<number> {
    const w = this.current(key, now);
    w.count++;
    return w.count;
  }
}

/** Failed client authentications allowed per client id and source address (OAuth token endpoint and Basic). */
export const AUTH_FAILURE_LIMIT = { max: 10, windowMs: 60_000 } as const;

/**
 * Limits failed authentications by (client id, source address) only: successes are never counted, and failures
 * from one address never block the same client elsewhere, so nobody can lock a merchant out by guessing
 * (issue 9, defect 6). The address is Fastify's `request.ip` (proxy hops per KASSA_TRUSTED_PROXIES).
 */
export class AuthFailureLimit {
  constructor(
    private readonly store: AttemptCounterStore,
    private readonly now: () => Date,
    private readonly max: number = AUTH_FAILURE_LIMIT.max,
  ) {}

  private key(scope: string, clientId: string, ip: string): string {
    return `${scope}\u0000${clientId}\u0000${ip}`;
  }

  /** Whether this client id from this address has used up its failures for now. */
  async blocked(scope: string, clientId: string, ip: string): Promise<boolean> {
    return (await this.store.count(this.key(scope, clientId, ip), this.now())) >= this.max;
  }

  /** Counts one failure. */
  async failed(scope: string, clientId: string, ip: string): Promise<void> {
    await this.store.hit(this.key(scope, clientId, ip), this.now());
  }

  /** Seconds until the current window ends (for Retry-After). */
  retryAfterSeconds(): number {
    const t = this.now().getTime();
    return Math.max(1, Math.ceil((AUTH_FAILURE_LIMIT.windowMs - (t % AUTH_FAILURE_LIMIT.windowMs)) / 1000));
  }
}
