import { type Kysely, sql } from 'kysely';

// Frozen in time: this migration must not import the app's row types, which move on.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('merchant')
    .addColumn('merchant_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('country', 'char(2)', (c) => c.notNull())
    .addColumn('currency', 'char(3)', (c) => c.notNull())
    .addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('webhook_url', 'varchar(2048)')
    .addColumn('webhook_secret', 'varchar(128)', (c) => c.notNull())
    .addColumn('surcharge', 'text')
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_key')
    .addColumn('key_id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('merchant_id', 'varchar(64)', (c) => c.notNull().references('merchant.merchant_id'))
    .addColumn('key_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('revoked_at', 'varchar(30)')
    .execute();

  await db.schema
    .createTable('payment')
    .addColumn('pay_id', 'char(32)', (c) => c.primaryKey())
    .addColumn('merchant_id', 'varchar(64)', (c) => c.notNull().references('merchant.merchant_id'))
    .addColumn('trans_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('ref_nr', 'varchar(64)')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('response_code', 'char(8)', (c) => c.notNull())
    .addColumn('currency', 'char(3)', (c) => c.notNull())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addColumn('captured_value', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('refunded_value', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('surcharge_status', 'varchar(16)', (c) => c.notNull())
    .addColumn('surcharge_reason', 'varchar(32)', (c) => c.notNull())
    .addColumn('surcharge_value', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('surcharge_captured_value', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('surcharge_refunded_value', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('capture_method', 'varchar(16)', (c) => c.notNull())
    .addColumn('integration_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('channel', 'varchar(16)', (c) => c.notNull())
    .addColumn('language', 'varchar(8)')
    .addColumn('card', 'text')
    .addColumn('three_ds', 'text')
    .addColumn('order_data', 'text')
    .addColumn('customer_info', 'text')
    .addColumn('urls', 'text')
    .addColumn('metadata', 'text')
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  // DESIGN.md §4: a new payment may reuse a transId only when the latest payment with it FAILED.
  // A partial unique index makes that hold under concurrency on both dialects.
  await db.schema
    .createIndex('payment_trans_id_live_uq')
    .on('payment')
    .columns(['merchant_id', 'trans_id'])
    .unique()
    .where(sql.ref('status'), '<>', 'FAILED')
    .execute();
  await db.schema
    .createIndex('payment_trans_id_idx')
    .on('payment')
    .columns(['merchant_id', 'trans_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('payment_operation')
    .addColumn('x_id', 'char(32)', (c) => c.primaryKey())
    .addColumn('pay_id', 'char(32)', (c) => c.notNull().references('payment.pay_id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('ref_nr', 'varchar(64)')
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addColumn('surcharge_value', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'varchar(8)', (c) => c.notNull())
    .addColumn('response_code', 'char(8)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  // seq orders a payment's operations; unique so that two concurrent follow-ups cannot both append as "next".
  await db.schema
    .createIndex('payment_operation_seq_uq')
    .on('payment_operation')
    .columns(['pay_id', 'seq'])
    .unique()
    .execute();

  await db.schema
    .createTable('idempotency_key')
    .addColumn('merchant_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('idem_key', 'varchar(255)', (c) => c.notNull())
    .addColumn('request_hash', 'char(64)', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_key_pk', ['merchant_id', 'idem_key'])
    .execute();

  // Transactional outbox (DESIGN.md §5): events are written in the transaction of the state change that causes them.
  await db.schema
    .createTable('notification')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('merchant_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('pay_id', 'char(32)')
    .addColumn('type', 'varchar(32)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('target_url', 'varchar(2048)')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('delivered_at', 'varchar(30)')
    .execute();
  await db.schema
    .createIndex('notification_due_idx')
    .on('notification')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('notification_pay_id_idx')
    .on('notification')
    .columns(['merchant_id', 'pay_id'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['notification', 'idempotency_key', 'payment_operation', 'payment', 'api_key', 'merchant']) {
    await db.schema.dropTable(t).execute();
  }
}
