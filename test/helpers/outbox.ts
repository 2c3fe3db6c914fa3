import type { Kysely } from 'kysely';
import type { Clock } from '../../src/domain/ports/clock.js';
import { migrateToLatest } from '../../src/storage/create-db.js';
import type { Database } from '../../src/storage/database.js';
import { KyselyStore } from '../../src/storage/kysely-store.js';
import { WebhookSecretBox } from '../../src/storage/webhook-secret-box.js';
import type { FreshDatabase } from './dialects.js';

/** The outbox events written for a payment, oldest first; with `typePrefix` (e.g. `payment.`) only those types. */
export async function outboxEvents(
  kysely: Kysely<Database>,
  payId: string,
  typePrefix?: string,
): Promise<{ type: string; payload: Record<string, unknown> }[]> {
  let query = kysely
    .selectFrom('notification')
    .select(['type', 'payload', 'created_at'])
    .where('pay_id', '=', payId)
    .orderBy('created_at')
    .orderBy('id'); // as the notifications API orders them: ids are time-ordered (UUID v7), created_at ties
  if (typePrefix !== undefined) query = query.where('type', 'like', `${typePrefix}%`);
  const rows = await query.execute();
  return rows.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

/**
 * A migrated fresh database's store with one merchant, `shop` (sandbox, a webhook secret), created at `clock.now()`:
 * the starting point of the outbox and retention tests.
 */
export async function storeWithShop(database: FreshDatabase, clock: Clock): Promise<KyselyStore> {
  await migrateToLatest(database.db);
  const store = new KyselyStore(database.db.kysely, new WebhookSecretBox('outbox-test-data-key-0123456789abcdef0123'));
  await insertShop(store, 'shop', clock);
  return store;
}

/** Inserts a sandbox DK merchant `merchantId` (named after itself, a webhook secret) created at `clock.now()`. */
async function insertShop(store: KyselyStore, merchantId: string, clock: Clock): Promise<void> {
  await store.merchants.insert({
    merchantId,
    name: merchantId === 'shop' ? 'Shop' : merchantId,
    country: 'DK',
    currency: 'DKK',
    sandbox: true,
    webhookSecret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0',
    creationDate: clock.now(),
  });
}
