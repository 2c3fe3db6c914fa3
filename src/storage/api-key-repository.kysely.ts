import type { Kysely, Selectable } from 'kysely';
import type { ApiKeyRecord } from '../domain/merchants/merchant.js';
import type { ApiKeyRepository } from '../domain/ports/store.js';
import type { ApiKeyTable, Database } from './database.js';
import { fromDbTime, toDbTime } from './rows.js';

function apiKeyRowToRecord(row: Selectable<ApiKeyTable>): ApiKeyRecord {
  return {
    keyId: row.key_id,
    merchantId: row.merchant_id,
    keyHash: row.key_hash,
    creationDate: fromDbTime(row.created_at),
    revokedAt: row.revoked_at === null ? undefined : fromDbTime(row.revoked_at),
  };
}

export class KyselyApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(key: ApiKeyRecord): Promise<void> {
    await this.db
      .insertInto('api_key')
      .values({
        key_id: key.keyId,
        merchant_id: key.merchantId,
        key_hash: key.keyHash,
        created_at: toDbTime(key.creationDate),
        revoked_at: key.revokedAt ? toDbTime(key.revokedAt) : null,
      })
      .execute();
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db.selectFrom('api_key').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
    return row && apiKeyRowToRecord(row);
  }

  async find(keyId: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db.selectFrom('api_key').selectAll().where('key_id', '=', keyId).executeTakeFirst();
    return row && apiKeyRowToRecord(row);
  }

  async listByMerchant(merchantId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db
      .selectFrom('api_key')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .orderBy('created_at')
      .orderBy('key_id')
      .execute();
    return rows.map(apiKeyRowToRecord);
  }

  async revoke(merchantId: string, keyId: string, at: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('api_key')
      .set({ revoked_at: toDbTime(at) })
      .where('merchant_id', '=', merchantId)
      .where('key_id', '=', keyId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }
}
