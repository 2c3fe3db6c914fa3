import type { Kysely } from 'kysely';

// Frozen in time: a merchant's webhook secret can be rotated in place (`kassa merchant webhook-secret rotate`). The
// secret it replaces stays usable until `previous_webhook_secret_expires_at` (an ISO 8601 instant, like every time
// column): until then every notification carries a signature under each secret (Standard Webhooks' rotation), so the
// merchant can switch its receiver without losing one. Sealed like `webhook_secret` (storage/webhook-secret-box.ts).
// Additive and nullable: a node of the previous release goes on signing with `webhook_secret` alone.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchant').addColumn('previous_webhook_secret', 'varchar(128)').execute();
  await db.schema.alterTable('merchant').addColumn('previous_webhook_secret_expires_at', 'varchar(30)').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchant').dropColumn('previous_webhook_secret_expires_at').execute();
  await db.schema.alterTable('merchant').dropColumn('previous_webhook_secret').execute();
}
