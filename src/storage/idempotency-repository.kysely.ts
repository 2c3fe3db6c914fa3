import type { Kysely, Selectable } from 'kysely';
import type { IdempotencyRecord, IdempotencyRepository } from '../domain/ports/store.js';
import { isUniqueViolation } from './create-db.js';
import type { Database, IdempotencyKeyTable } from './database.js';
import { shaped } from './query-shapes.js';
import { fromDbTime, optional, toDbTime } from './rows.js';

export class KyselyIdempotencyRepository implements IdempotencyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async claim(merchantId: string, key: string, requestHash: string, now: Date): Promise<IdempotencyRecord | undefined> {
    const row = {
      merchant_id: merchantId,
      idem_key: key,
      request_hash: requestHash,
      state: 'IN_FLIGHT',
      response_status: null,
      response_body: null,
      created_at: toDbTime(now),
    };
    try {
      await this.db.executeQuery(
        shaped(this.db, 'idempotency_key.insert', Object.values(row), () =>
          this.db.insertInto('idempotency_key').values(row),
        ),
      );
      return undefined;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const query = shaped(this.db, 'idempotency_key.find', [merchantId, key], () =>
      this.db
        .selectFrom('idempotency_key')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .where('idem_key', '=', key),
    );
    const found = (await this.db.executeQuery(query)).rows[0] as Selectable<IdempotencyKeyTable> | undefined;
    if (!found) return this.claim(merchantId, key, requestHash, now); // released between our insert and select
    return {
      requestHash: found.request_hash,
      state: found.state as 'IN_FLIGHT' | 'DONE',
      responseStatus: optional(found.response_status),
      responseBody: optional(found.response_body),
      creationDate: fromDbTime(found.created_at),
    };
  }

  async complete(merchantId: string, key: string, status: number, body: string): Promise<void> {
    const query = shaped(this.db, 'idempotency_key.complete', ['DONE', status, body, merchantId, key], () =>
      this.db
        .updateTable('idempotency_key')
        .set({ state: 'DONE', response_status: status, response_body: body })
        .where('merchant_id', '=', merchantId)
        .where('idem_key', '=', key),
    );
    await this.db.executeQuery(query);
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
