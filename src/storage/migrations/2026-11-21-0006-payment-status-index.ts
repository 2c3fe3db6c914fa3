import type { Kysely } from 'kysely';

// Frozen in time: lets the hosted expiry sweep find waiting payments without scanning every payment.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('payment_status_created_idx').on('payment').columns(['status', 'created_at']).execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payment_status_created_idx').execute();
}
