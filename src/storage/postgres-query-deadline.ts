import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { settleWithin } from '../domain/ports/deadline.js';

/**
 * A query that got no answer within its deadline. `code` is ETIMEDOUT, the socket error a lost connection surfaces as,
 * so the request is answered 503 DATABASE_UNAVAILABLE and may be retried (http/problem.ts isDatabaseConnectionFailure).
 */
export class PostgresQueryTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(readonly timeoutMs: number) {
    super(`PostgreSQL did not answer a query within ${timeoutMs} ms; its connection is closed`);
    this.name = 'PostgresQueryTimeoutError';
  }
}

/**
 * pg-pool's errors when no connection was had within its `connectionTimeoutMillis`: a new one was not established, or
 * none became free.
 */
const CONNECT_TIMEOUT = /^(Connection terminated due to connection timeout|timeout exceeded when trying to connect)$/;

/**
 * No connection within the pool's connect timeout (pg-pool's error is the `cause`). `code` ETIMEDOUT, as for a query
 * past its deadline: callers that would try the database once more on another error do not wait out a second
 * timeout (http/auth/failure-limit.ts), and the request is answered 503 DATABASE_UNAVAILABLE.
 */
export class PostgresConnectTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(cause: Error) {
    super(`PostgreSQL gave no connection in time (${cause.message})`, { cause });
    this.name = 'PostgresConnectTimeoutError';
  }
}

/**
 * node-postgres' pool as Kysely's PostgreSQL driver takes it, with a deadline on every query (`timeoutMs`; 0: none).
 *
 * Without one, a server that stops answering without closing the connection (a primary gone after a failover, a VM
 * frozen, packets dropped) holds each query, its request and its pooled connection until TCP gives up: ~15 min of
 * retransmissions on Linux (tcp_retries2), while the new primary is already reachable. node-postgres' own
 * `query_timeout` ends the wait but leaves the query on the connection and the connection in the pool, where every later
 * query queues behind it. Here a query past its deadline fails with PostgresQueryTimeoutError, every later query of
 * that checkout fails at once with it (a transaction's ROLLBACK included), and the connection is released as broken:
 * the pool closes its socket and opens a new connection for the next checkout. A checkout that gets no connection
 * within the pool's connect timeout fails with PostgresConnectTimeoutError (the same `code`).
 */
export class PostgresDeadlinePool implements PostgresPool {
  /** The deadline of each query, in ms; 0: none. Changed at any time, it applies to the queries sent after. */
  timeoutMs: number;

  constructor(
    private readonly pool: pg.Pool,
    timeoutMs = 0,
  ) {
    this.timeoutMs = timeoutMs;
  }

  /** A connection whose queries have the deadline. @throws PostgresConnectTimeoutError, or pg-pool's other errors. */
  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect().catch((error: unknown) => {
      throw error instanceof Error && CONNECT_TIMEOUT.test(error.message)
        ? new PostgresConnectTimeoutError(error)
        : error;
    });
    let broken: PostgresQueryTimeoutError | undefined;
    const query = (sql: string, parameters: ReadonlyArray<unknown>) => {
      if (broken) return Promise.reject(broken);
      const timeoutMs = this.timeoutMs;
      const answer = client.query(sql, parameters as unknown[]);
      if (timeoutMs <= 0) return answer;
      return settleWithin(timeoutMs, answer, () => {
        broken = new PostgresQueryTimeoutError(timeoutMs);
        return broken;
      });
    };
    return {
      // Only the (sql, parameters) form: Kysely sends a cursor only when its dialect is given one (createDb does not).
      query: query as unknown as PostgresPoolClient['query'],
      release: () => client.release(broken),
    };
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}
