import { hash } from 'node:crypto';
import type { AttemptCounters } from '../../domain/ports/attempt-counters.js';
import { isTimeout } from '../../domain/ports/deadline.js';

/**
 * Reads an attempt counter (AttemptCounters.count's arguments) and the credentials epoch in one statement; with
 * `alongside` (an adapter's read, opaque here: KyselyAuthEpoch.readWithAttempts) it may read that too, in the same
 * statement, and answer its `{ value }`.
 */
export type ReadAttemptsWithEpoch = (
  counterKey: string,
  windowMs: number,
  now: Date,
  alongside?: object,
) => Promise<{ attempts: number; epoch: number; alongside?: { value: unknown } }>;

/**
 * The credentials epoch when it is known without a read and no failure of the attempt counter `counterKey`
 * (AttemptCounters.count's arguments) was counted in its current window (PostgresAuthListener.epochIfNoFailures);
 * undefined when the counter must be read.
 */
export type KnownEpochIfNoFailures = (counterKey: string, windowMs: number, now: Date) => number | undefined;

/**
 * Failed client authentications allowed per client id and source address, counted together for the OAuth token
 * endpoint and HTTP Basic (one counter: alternating the two must not double the guesses).
 */
export const AUTH_FAILURE_LIMIT = { max: 10, windowMs: 60_000 } as const;

/**
 * Limits failed authentications by (client id, source address) only: successes are never counted, and failures
 * from one address never block the same client elsewhere, so nobody can lock a merchant out by guessing
 * (issue 9, defect 6). The address is Fastify's `request.ip` (proxy hops per KASSA_TRUSTED_PROXIES). The counters are
 * shared by every node when `store` is (Redis, the database: issue 14).
 */
export class AuthFailureLimit {
  /**
   * @param readWithEpoch when the counters are in the database: reads a counter (AttemptCounters.count's arguments)
   *   and the credentials epoch in one statement (KyselyAuthEpoch.readWithAttempts), for `precheck`.
   * @param knownEpoch when the counters are in PostgreSQL and a node listens for their failures: `precheck` reads
   *   nothing while it answers.
   */
  constructor(
    private readonly store: AttemptCounters,
    private readonly now: () => Date,
    private readonly max: number = AUTH_FAILURE_LIMIT.max,
    private readonly readWithEpoch?: ReadAttemptsWithEpoch,
    private readonly knownEpoch?: KnownEpochIfNoFailures,
  ) {}

  /**
   * A digest, not the raw id: a client id may hold any text (NUL, lone surrogates) that no store should see
   * (crypto.hash: one call per request, a third of createHash's time).
   */
  private key(clientId: string, ip: string): string {
    return `authfail:${hash('sha256', JSON.stringify([clientId, ip]), 'base64url')}`;
  }

  /**
   * Whether this client id from this address has used up its failures for now. A store that cannot answer (Redis
   * or the database down) blocks nobody, as the API rate limits (`skipOnError`): the limiter must not take
   * authentication down with it. Except a read of counters in the database (`readWithEpoch` given) that timed out
   * (`code` ETIMEDOUT): the credentials are read from that same database next and would only wait out a second
   * deadline, so the error is thrown (the token endpoint answers 503 `temporarily_unavailable`).
   * @throws the read's error when the counters are in the database and it timed out.
   */
  async blocked(clientId: string, ip: string): Promise<boolean> {
    return this.counted(this.key(clientId, ip), this.now());
  }

  /** `blocked` of a counter key at `now`. */
  private async counted(key: string, now: Date): Promise<boolean> {
    const count = await this.store.count(key, AUTH_FAILURE_LIMIT.windowMs, now).catch((error: unknown) => {
      if (this.readWithEpoch !== undefined && isTimeout(error)) throw error;
      return 0;
    });
    return count >= this.max;
  }

  /**
   * `blocked`, and the credentials epoch read by the same statement when the counters are in the database (issue 12:
   * one round trip for both before an HTTP Basic lookup; CredentialCache takes the epoch). No round trip at all when
   * `knownEpoch` knows the epoch and that this counter has no failures in its window. Without `readWithEpoch`, or when
   * that read fails, `epoch` is undefined and the cache reads it itself (a connection reset: likely on a fresh
   * connection, so the request may still succeed). A read that timed out (`code` ETIMEDOUT: the database answered
   * nothing within its deadline, storage/postgres-query-deadline.ts) is thrown instead: the credentials need that
   * database too, and the cache's read would wait out a second deadline before failing the request all the same.
   * `alongside` goes to `readWithEpoch`; `alongside` in the answer is its value when that statement read it too.
   * @throws the read's error when it timed out (answered 503 DATABASE_UNAVAILABLE).
   */
  async precheck(
    clientId: string,
    ip: string,
    alongside?: object,
  ): Promise<{ blocked: boolean; epoch?: number; alongside?: { value: unknown } }> {
    const key = this.key(clientId, ip);
    const now = this.now();
    const known = this.knownEpoch?.(key, AUTH_FAILURE_LIMIT.windowMs, now);
    if (known !== undefined) return { blocked: false, epoch: known };
    if (this.readWithEpoch === undefined) return { blocked: await this.counted(key, now) };
    const read = await this.readWithEpoch(key, AUTH_FAILURE_LIMIT.windowMs, now, alongside).catch((error: unknown) => {
      if (isTimeout(error)) throw error;
      return undefined;
    });
    if (read === undefined) return { blocked: false };
    const answer = { blocked: read.attempts >= this.max, epoch: read.epoch };
    return read.alongside === undefined ? answer : { ...answer, alongside: read.alongside };
  }

  /** Counts one failure (lost, not thrown, when the store cannot answer). */
  async failed(clientId: string, ip: string): Promise<void> {
    await this.store.hit(this.key(clientId, ip), AUTH_FAILURE_LIMIT.windowMs, this.now()).catch(() => 0);
  }

  /** Seconds until the current window ends (for Retry-After). */
  retryAfterSeconds(): number {
    const t = this.now().getTime();
    return Math.max(1, Math.ceil((AUTH_FAILURE_LIMIT.windowMs - (t % AUTH_FAILURE_LIMIT.windowMs)) / 1000));
  }
}
