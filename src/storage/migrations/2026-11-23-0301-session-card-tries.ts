import type { Kysely } from 'kysely';

// Frozen in time (issue 9, defect 5): how many card tries (payments) a hosted payment page session has started, so the
// try cap holds across restarts and nodes.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('checkout_session')
    .addColumn('card_tries', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('checkout_session').dropColumn('card_tries').execute();
}
