import { type Kysely, sql } from 'kysely';

// Frozen in time: the payments whose authorization is in flight — PENDING with 60000001 (being processed) or 60020001
// (the acquirer did not answer) — indexed by when they got there, for the sweep that resolves those left behind by a
// request that died or lost its database between the acquirer call and its result (AuthorizationRecovery). Partial:
// a payment enters it at its intent and leaves at its result, so the index holds only the payments in flight. The
// sweep's query names the same condition with literal values (storage/payment-repository.kysely.ts), which both
// planners need to choose a partial index.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('payment_processing_updated_idx')
    .on('payment')
    .column('updated_at')
    .where(sql<boolean>`status = 'PENDING' and response_code in ('60000001', '60020001')`)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payment_processing_updated_idx').execute();
}
