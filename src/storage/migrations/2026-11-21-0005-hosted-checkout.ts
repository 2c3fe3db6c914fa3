import type { Kysely } from 'kysely';

// Frozen in time: hosted payment page sessions, and what the hosted card step keeps on a payment.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('checkout_session')
    .addColumn('session_id', 'char(32)', (c) => c.primaryKey())
    .addColumn('merchant_id', 'varchar(64)', (c) => c.notNull().references('merchant.merchant_id'))
    .addColumn('trans_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('ref_nr', 'varchar(64)')
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'char(3)', (c) => c.notNull())
    .addColumn('capture_method', 'varchar(16)', (c) => c.notNull())
    .addColumn('language', 'varchar(8)')
    .addColumn('order_data', 'text')
    .addColumn('customer_info', 'text')
    .addColumn('urls', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('pay_id', 'char(32)')
    .addColumn('expires_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('checkout_session_trans_id_idx')
    .on('checkout_session')
    .columns(['merchant_id', 'trans_id'])
    .execute();
  await db.schema.alterTable('payment').addColumn('session_id', 'char(32)').execute();
  // The cardholder's consent to the amounts the hosted review step showed (DESIGN.md §7), as JSON.
  await db.schema.alterTable('payment').addColumn('surcharge_consent', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment').dropColumn('surcharge_consent').execute();
  await db.schema.alterTable('payment').dropColumn('session_id').execute();
  await db.schema.dropTable('checkout_session').execute();
}
