import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/database.js';

/**
 * A bare `merchant` row written straight into the table (storage tests that need one without the service: the
 * credentials epoch, its notifications). @returns its merchant id, `m_` and 8 random hex digits.
 */
export async function insertMerchantRow(db: Kysely<Database>, createdAt = new Date()): Promise<string> {
  const merchantId = `m_${randomUUID().slice(0, 8)}`;
  await db
    .insertInto('merchant')
    .values({
      merchant_id: merchantId,
      name: 'Shop',
      country: 'DK',
      currency: 'DKK',
      sandbox: 1,
      webhook_url: null,
      webhook_secret: 'sealed',
      surcharge: null,
      created_at: createdAt.toISOString(),
    })
    .execute();
  return merchantId;
}

/** Renames a merchant row: a change to it, which bumps the credentials epoch (migration 2026-11-23-0101). */
export async function renameMerchantRow(db: Kysely<Database>, merchantId: string, name: string): Promise<void> {
  await db.updateTable('merchant').set({ name }).where('merchant_id', '=', merchantId).execute();
}
