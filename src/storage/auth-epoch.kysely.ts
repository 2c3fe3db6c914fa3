import type { CompiledQuery, Kysely } from 'kysely';
import { attemptRowKey } from './attempt-counters.kysely.js';
import type { Database } from './database.js';
import { shaped } from './query-shapes.js';

/**
 * Reads the credentials epoch (migration 2026-11-23-0101): a number that grows whenever any API key or merchant row
 * changes, on any node or process. One indexed single-row read, compiled once.
 */
export class KyselyAuthEpoch {
  private readonly query: CompiledQuery<{ epoch: number }>;

  constructor(private readonly db: Kysely<Database>) {
    this.query = db.selectFrom('auth_epoch').select('epoch').where('id', '=', 1).compile();
  }

  async read(): Promise<number> {
    const { rows } = await this.db.executeQuery(this.query);
    return Number(rows[0]?.epoch ?? 0);
  }

  /**
   * The epoch and, in the same statement, the attempts an attempt counter of KyselyAttemptCounters holds (issue 12:
   * HTTP Basic reads its failure count and the epoch in one round trip). Same arguments as AttemptCounters.count.
   */
  async readWithAttempts(
    counterKey: string,
    windowMs: number,
    now: Date,
  ): Promise<{ epoch: number; attempts: number }> {
    const key = attemptRowKey(counterKey, windowMs, now).key;
    const query = shaped(this.db, 'auth_epoch.withAttempts', [key, 1], () =>
      this.db
        .selectFrom('auth_epoch')
        .select((eb) => [
          'epoch',
          eb.selectFrom('rate_limit_counter').select('count').where('key', '=', key).as('attempts'),
        ])
        .where('id', '=', 1),
    );
    const rows = (await this.db.executeQuery(query)).rows as { epoch: number; attempts: number | null }[];
    return { epoch: Number(rows[0]?.epoch ?? 0), attempts: Number(rows[0]?.attempts ?? 0) };
  }
}
