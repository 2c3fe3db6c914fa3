import type pg from 'pg';
import { attemptRowKey, attemptRowResetAt } from './attempt-counters.kysely.js';

/** The channel migration 2026-11-23-0401 notifies on: `epoch <n>` and `failure <rate_limit_counter.key>`. */
export const AUTH_CHANNEL = 'kassa_auth';
/** The listening connection's `application_name`, as pg_stat_activity shows it. */
export const LISTENER_APPLICATION_NAME = 'kassa-auth-listener';

/** Settings of the listener. */
export interface ListenerOptions {
  /** ms between heartbeats: each re-reads the epoch on the listening connection, proving the connection alive. */
  heartbeatMs: number;
  /** ms a heartbeat may take before the connection counts as lost. */
  heartbeatTimeoutMs: number;
  /** ms before a lost connection is opened again. */
  reconnectMs: number;
  /**
   * Failure counters remembered at most. Past that (failed authentications from very many client ids or addresses)
   * every counter is read, until the windows of the remembered ones end: memory stays bounded on every node.
   */
  maxFailures: number;
}
export const LISTENER_OPTIONS: ListenerOptions = {
  heartbeatMs: 1_000,
  heartbeatTimeoutMs: 2_000,
  reconnectMs: 1_000,
  maxFailures: 100_000,
};

const STATE_QUERY = `select (select epoch from auth_epoch where id = 1) as epoch,
  coalesce((select json_agg(key) from rate_limit_counter where key like 'a:authfail:%' and reset_at > $1), '[]') as failures`;
const EPOCH_QUERY = 'select epoch from auth_epoch where id = 1';

/**
 * The credentials epoch and the authentication failures of the current windows, held in memory from PostgreSQL's
 * LISTEN/NOTIFY (issue 12: HTTP Basic and Bearer requests without a database read). One connection of its own, outside
 * the pool, LISTENs on {@link AUTH_CHANNEL}; PostgreSQL sends each node the new epoch when an API key or merchant change
 * commits (migration 2026-11-23-0401), and the key of each authentication-failure counter that counts up.
 *
 * While the connection is not live (not yet connected, lost, a heartbeat unanswered for heartbeatTimeoutMs) both
 * answers are undefined, and callers read the database per request as without the listener. After each (re)connect
 * the state is read again after LISTEN, so nothing committed while it was down is missed.
 *
 * A revocation reaches the other nodes when PostgreSQL delivers its notification after the commit (that delay was not
 * measured), not in the same round trip as a per-request read would; the node that made a change re-reads the epoch
 * at once ({@link refresh}).
 */
export class PostgresAuthListener {
  private client: pg.Client | undefined;
  private live = false;
  private epoch = 0;
  /** Failure counter row keys (`a:authfail:<digest>@<window ms>:<window start>`) → their window's end, Unix ms. */
  private readonly failures = new Map<string, number>();
  /** Until when (Unix ms) every counter counts as failed, after `maxFailures` was reached. */
  private overflowUntil = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  private heartbeatInFlight = false;
  private reconnect: NodeJS.Timeout | undefined;
  private closed = false;

  /**
   * @param connect a new, unconnected client (not from the pool: it stays LISTENing).
   * @param now the clock, for the failure windows.
   * @param onLost told each time the connection is lost or cannot be opened (the node reads per request meanwhile).
   */
  constructor(
    private readonly connect: () => pg.Client,
    private readonly now: () => Date,
    private readonly onLost: (error: Error) => void = () => {},
    private readonly options: ListenerOptions = LISTENER_OPTIONS,
  ) {}

  /** Opens the connection; resolves when live, or when the first attempt failed (it is retried every reconnectMs). */
  async start(): Promise<void> {
    await this.open();
  }

  /** The current credentials epoch while live; undefined when the caller must read it. */
  liveEpoch(): number | undefined {
    return this.live ? this.epoch : undefined;
  }

  /**
   * The epoch while live and no failure of the attempt counter `counterKey` (AttemptCounters' arguments) was counted
   * in its current window; undefined when the caller must read the counter (and the epoch with it).
   */
  epochIfNoFailures(counterKey: string, windowMs: number, now: Date): number | undefined {
    if (!this.live || now.getTime() < this.overflowUntil) return undefined;
    return this.failures.has(attemptRowKey(counterKey, windowMs, now).key) ? undefined : this.epoch;
  }

  /** Reads the epoch now, on the listening connection (after this node changed credentials). Never throws. */
  async refresh(): Promise<void> {
    const client = this.client;
    if (!this.live || client === undefined) return;
    try {
      const { rows } = await client.query(EPOCH_QUERY);
      this.raiseEpoch(rows[0]?.epoch);
    } catch (error) {
      this.lost(client, error);
    }
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    this.live = false;
    clearInterval(this.heartbeat);
    clearTimeout(this.reconnect);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    const client = this.connect();
    this.client = client;
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    client.on('notification', (n) => {
      if (n.channel === AUTH_CHANNEL) this.notified(n.payload ?? '');
    });
    try {
      await client.connect();
      // LISTEN before reading the state: a change committed in between is then both read and notified.
      await client.query(`listen ${AUTH_CHANNEL}`);
      const { rows } = await client.query(STATE_QUERY, [this.now().getTime()]);
      if (this.client !== client) return; // lost meanwhile
      this.raiseEpoch(rows[0]?.epoch);
      for (const key of (rows[0]?.failures ?? []) as string[]) this.failed(key);
      this.live = true;
      this.heartbeat = setInterval(() => void this.beat(client), this.options.heartbeatMs).unref();
    } catch (error) {
      this.lost(client, error);
    }
  }

  private async beat(client: pg.Client): Promise<void> {
    if (this.heartbeatInFlight) return;
    this.heartbeatInFlight = true;
    const timeout = setTimeout(
      () => this.lost(client, new Error('heartbeat unanswered')),
      this.options.heartbeatTimeoutMs,
    );
    try {
      const { rows } = await client.query(EPOCH_QUERY);
      this.raiseEpoch(rows[0]?.epoch);
      const now = this.now().getTime();
      for (const [key, end] of this.failures) if (end <= now) this.failures.delete(key);
    } catch (error) {
      this.lost(client, error);
    } finally {
      clearTimeout(timeout);
      this.heartbeatInFlight = false;
    }
  }

  private notified(payload: string): void {
    const space = payload.indexOf(' ');
    const kind = payload.slice(0, space);
    const value = payload.slice(space + 1);
    if (kind === 'epoch') this.raiseEpoch(value);
    else if (kind === 'failure') this.failed(value);
  }

  /** The epoch only grows (a late heartbeat answer must not take back a notified bump). */
  private raiseEpoch(value: unknown): void {
    const epoch = Number(value);
    if (Number.isFinite(epoch) && epoch > this.epoch) this.epoch = epoch;
  }

  /** Remembers a failure counter row key until its window ends (`…@<window ms>:<window start>`). */
  private failed(rowKey: string): void {
    const end = attemptRowResetAt(rowKey) ?? Number.POSITIVE_INFINITY;
    if (this.failures.size >= this.options.maxFailures && !this.failures.has(rowKey)) {
      for (const kept of this.failures.values()) this.overflowUntil = Math.max(this.overflowUntil, kept);
      this.overflowUntil = Math.max(this.overflowUntil, end);
      this.failures.clear();
      return;
    }
    this.failures.set(rowKey, end);
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return; // an earlier connection's late event
    this.client = undefined;
    this.live = false;
    this.failures.clear();
    clearInterval(this.heartbeat);
    this.heartbeatInFlight = false;
    client.end().catch(() => {});
    if (this.closed) return;
    this.onLost(error instanceof Error ? error : new Error(String(error)));
    this.reconnect = setTimeout(() => void this.open(), this.options.reconnectMs);
    this.reconnect.unref();
  }
}
