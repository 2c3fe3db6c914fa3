import type DataLoader from 'dataloader';
import { type CompiledQuery, type Kysely, SqliteAdapter } from 'kysely';
import { attemptRowKey } from './attempt-counters.kysely.js';
import type { Database } from './database.js';
import { inFlightBatches } from './in-flight-batches.js';
import { shaped } from './query-shapes.js';
import type { ReadAlongside } from './read-alongside.js';

/** The loader's key of a read of the epoch alone (a counter row key is never empty). */
const EPOCH_ONLY = '';

/** Counter keys read by one statement at most (each count of keys is a statement shape of its own). */
export const AUTH_READ_MAX_KEYS = 32;

/**
 * Reads the credentials epoch (migration 2026-11-23-0101): a number that grows whenever any API key or merchant row
 * changes, on any node or process. One indexed single-row read, compiled once per shape.
 *
 * Reads are shared, never stale (issue 12): a read answers only the callers that asked before its statement was sent.
 * Callers that ask while a read is on its way to the database wait for the next one, which is sent when that read has
 * answered and then serves all of them, with the attempt counters they asked for, in one statement (DataLoader
 * batches, storage/in-flight-batches.ts). So every answer was read by a statement sent after its caller asked: a
 * revocation committed before a request reached this node is seen by that request, as with a read of its own ("a
 * revoked key fails on the very next request", on every node). On PostgreSQL, 32 concurrent requests then share their credential reads instead
 * of each paying a round trip. On SQLite a read is answered at once on the read connection, with no round trip to
 * share, so there each caller reads on its own (`shareReads: false`): the batching only cost time there (measured:
 * getByPayId 5,035–5,081 against 5,109–5,324/s).
 */
export class KyselyAuthEpoch {
  private readonly epochQuery: CompiledQuery<{ epoch: number }>;
  /** Shared reads (PostgreSQL); undefined: each caller runs its own statement (SQLite). */
  private readonly loader: DataLoader<string, { epoch: number; attempts: number }> | undefined;

  /**
   * @param shareReads whether callers share statements; by default on PostgreSQL and not on SQLite (whose read
   *   connection answers at once).
   */
  constructor(
    private readonly db: Kysely<Database>,
    shareReads = !(db.getExecutor().adapter instanceof SqliteAdapter),
  ) {
    this.epochQuery = db.selectFrom('auth_epoch').select('epoch').where('id', '=', 1).compile();
    if (shareReads) this.loader = inFlightBatches((keys) => this.send(keys), AUTH_READ_MAX_KEYS);
  }

  /** The current epoch, read after this call. @throws the database's error. */
  async read(): Promise<number> {
    return (await this.load(EPOCH_ONLY)).epoch;
  }

  /**
   * The epoch and, in the same statement, the attempts an attempt counter of KyselyAttemptCounters holds (issue 12:
   * HTTP Basic reads its failure count and the epoch in one round trip), both read after this call. Same arguments as
   * AttemptCounters.count. @throws the database's error.
   */
  readWithAttempts(counterKey: string, windowMs: number, now: Date): Promise<{ epoch: number; attempts: number }>;
  /**
   * readWithAttempts, and `alongside` in the same statement when reads are not shared (SQLite: the credentials check
   * and a lookup by payId or transId in one read transaction instead of two; issue 12). `alongside` is then
   * `{ value }`, read in the same snapshot as the epoch; it is undefined when the read did not run (shared reads: the
   * caller reads it on its own).
   */
  readWithAttempts<T>(
    counterKey: string,
    windowMs: number,
    now: Date,
    alongside: ReadAlongside<T> | undefined,
  ): Promise<{ epoch: number; attempts: number; alongside?: { value: T } }>;
  readWithAttempts<T>(
    counterKey: string,
    windowMs: number,
    now: Date,
    alongside?: ReadAlongside<T>,
  ): Promise<{ epoch: number; attempts: number; alongside?: { value: T } }> {
    const key = attemptRowKey(counterKey, windowMs, now).key;
    if (alongside !== undefined && this.loader === undefined) return this.statementAlongside(key, alongside);
    return this.load(key);
  }

  private async load(key: string): Promise<{ epoch: number; attempts: number }> {
    if (this.loader !== undefined) return this.loader.load(key);
    const [answer] = await this.send([key]);
    return answer as { epoch: number; attempts: number };
  }

  /** One statement for a batch: the epoch and the counters of `keys` (row keys; EPOCH_ONLY asks for none). */
  private async send(keys: readonly string[]): Promise<{ epoch: number; attempts: number }[]> {
    const { epoch, counts } = await this.statement([...new Set(keys.filter((k) => k !== EPOCH_ONLY))]);
    return keys.map((k) => ({ epoch, attempts: counts.get(k) ?? 0 }));
  }

  /**
   * `select alongside.*, epoch, (select count from rate_limit_counter where key = ?) from auth_epoch left join
   * (<alongside>) alongside on true where id = 1`: one row whatever `alongside` finds.
   */
  private async statementAlongside<T>(
    key: string,
    alongside: ReadAlongside<T>,
  ): Promise<{ epoch: number; attempts: number; alongside?: { value: T } }> {
    const query = shaped(this.db, `auth_epoch.withAttempts+${alongside.shape}`, [key, ...alongside.params, 1], () =>
      this.db
        .selectFrom('auth_epoch')
        .leftJoin(
          () => alongside.build().as('alongside'),
          (join) => join.onTrue(),
        )
        .selectAll('alongside')
        .select((eb) => [
          'auth_epoch.epoch as kassa_auth_epoch',
          eb.selectFrom('rate_limit_counter').select('count').where('key', '=', key).as('kassa_auth_attempts'),
        ])
        .where('auth_epoch.id', '=', 1),
    );
    const [row] = (await this.db.executeQuery(query)).rows as Record<string, unknown>[];
    if (row === undefined) return { epoch: 0, attempts: 0 };
    return {
      epoch: Number(row.kassa_auth_epoch ?? 0),
      attempts: Number(row.kassa_auth_attempts ?? 0),
      alongside: { value: alongside.parse(row) },
    };
  }

  private async statement(counterKeys: string[]): Promise<{ epoch: number; counts: Map<string, number> }> {
    if (counterKeys.length === 0) {
      const { rows } = await this.db.executeQuery(this.epochQuery);
      return { epoch: Number(rows[0]?.epoch ?? 0), counts: new Map() };
    }
    if (counterKeys.length === 1) {
      // One counter (every read on SQLite, most on PostgreSQL): a scalar subquery, measurably cheaper on SQLite than
      // the join below (getByPayId 4,984–5,144 against 4,940–5,007/s).
      const key = counterKeys[0] as string;
      const query = shaped(this.db, 'auth_epoch.withAttempts', [key, 1], () =>
        this.db
          .selectFrom('auth_epoch')
          .select((eb) => [
            'epoch',
            eb.selectFrom('rate_limit_counter').select('count').where('key', '=', key).as('attempts'),
          ])
          .where('id', '=', 1),
      );
      const { rows } = (await this.db.executeQuery(query)) as { rows: { epoch: number; attempts: number | null }[] };
      return { epoch: Number(rows[0]?.epoch ?? 0), counts: new Map([[key, Number(rows[0]?.attempts ?? 0)]]) };
    }
    // select epoch, key, count from auth_epoch left join rate_limit_counter on key in (…) where id = 1: one row per
    // counter found, or one row with a null key when none is.
    const query = shaped(this.db, `auth_epoch.withAttempts.${counterKeys.length}`, [...counterKeys, 1], () =>
      this.db
        .selectFrom('auth_epoch')
        .leftJoin('rate_limit_counter', (join) => join.on('rate_limit_counter.key', 'in', counterKeys))
        .select(['auth_epoch.epoch', 'rate_limit_counter.key', 'rate_limit_counter.count'])
        .where('auth_epoch.id', '=', 1),
    );
    const { rows } = (await this.db.executeQuery(query)) as {
      rows: { epoch: number; key: string | null; count: number | null }[];
    };
    const counts = new Map<string, number>();
    for (const row of rows) if (row.key !== null) counts.set(row.key, Number(row.count ?? 0));
    return { epoch: Number(rows[0]?.epoch ?? 0), counts };
  }
}
