import type { Kysely } from 'kysely';
import type { IdempotencyRecord, IdempotencyRepository } from '../domain/ports/store.js';
import { isUniqueViolation } from './create-db.js';
import type { Database } from './database.js';
import { fromDbTime, optional, toDbTime } from './rows.js';

export class KyselyIdempotencyRepository implements IdempotencyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async claim(merchantId: string, key: string, requestHash: string, now: Date): Promise<IdempotencyRecord | undefined> {
    try {
      await this.db
        .insertInto('idempotency_key')
        .values({
          merchant_id: merchantId,
          idem_key: key,
          request_hash: requestHash,
          state: 'IN_FLIGHT',
          response_status: null,
          response_body: null,
          created_at: toDbTime(now),
        })
        .execute();
      return undefined;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const row = await this.db
      .selectFrom('idempotency_key')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('idem_key', '=', key)
      .executeTakeFirst();
    if (!row) return this.claim(merchantId, key, requestHash, now); // released between our insert and select
    return {
      requestHash: row.request_hash,
      state: row.state as 'IN_FLIGHT' | 'DONE',
      responseStatus: optional(row.response_status),
      responseBody: optional(row.response_body),
      creationDate: fromDbTime(row.created_at),
    };
  }

  async complete(merchantId: string, key: string, status: number, body: string): Promise<void> {
    await this.db
      .updateTable('idempotency_key')
      .set({ state: 'DONE', response_status: status, response_body: body })
      .where('merchant_id', '=', merchantId)
      .where('idem_key', '=', key)
      .execute();
  }

  async release(merchantId: string, key: string): Promise<void> {
    await this.db
      .deleteFrom('idempotency_key')
      .where('merchant_id', '=', merchantId)
      .where('idem_key', '=', key)
      .execute();
  }

  async reclaimIfOlder(
    merchantId: string,
    key: string,
    requestHash: string,
    olderThan: Date,
    now: Date,
  ): Promise<boolean> {
    const r = await this.db
      .updateTable('idempotency_key')
      .set({
        request_hash: requestHash,
        state: 'IN_FLIGHT',
        response_status: null,
        response_body: null,
        created_at: toDbTime(now),
      })
      .where('merchant_id', '=', merchantId)
      .where('idem_key', '=', key)
      .where('created_at', '<', toDbTime(olderThan))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }
}
