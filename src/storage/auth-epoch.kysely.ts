import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from './database.js';

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
}
