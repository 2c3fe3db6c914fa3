import type { Kysely } from 'kysely';

// Frozen in time: this migration must not import the app's row types, which move on.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  // The audit log of surcharge settings changes (DESIGN.md §7): who, when, before and after, per merchant in order.
  // The settings themselves live in merchant.surcharge (JSON text, migration 0001).
  await db.schema
    .createTable('surcharge_audit')
    .addColumn('merchant_id', 'varchar(64)', (c) => c.notNull().references('merchant.merchant_id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('action', 'varchar(16)', (c) => c.notNull())
    .addColumn('actor', 'varchar(100)', (c) => c.notNull())
    .addColumn('settings_before', 'text', (c) => c.notNull())
    .addColumn('settings_after', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addPrimaryKeyConstraint('surcharge_audit_pk', ['merchant_id', 'seq'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('surcharge_audit').execute();
}
