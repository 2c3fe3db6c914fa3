import { type Kysely, SqliteAdapter, sql } from 'kysely';

// Frozen in time (issue 12): a payment's operations and notifications are indexed by the payment's creation time
// first, so that a new payment's index entries land on the newest leaves instead of one random leaf each. payId is a
// random UUID (DESIGN.md §4), and the former (pay_id, seq) and (merchant_id, pay_id) indexes put every new payment's
// operation and notification on a leaf of its own once the tables are large: in a database of 1,000,000 payments each
// batch wrote and fsynced one such page per index per payment (docs/decisions.md, "Payment locality").
// `payment_created_at` is a copy of `payment.created_at` (the payment's, not the row's: a capture made days later sits
// beside its payment); the statements that write and read these rows take it from the payment row by pay_id.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_operation').addColumn('payment_created_at', 'varchar(30)').execute();
  await sql`update payment_operation set payment_created_at =
    (select p.created_at from payment p where p.pay_id = payment_operation.pay_id)`.execute(db);
  // Every operation has its payment (foreign key). SQLite cannot add NOT NULL to an existing column; its writers all
  // give the value, and the column is required in the row type (storage/database.ts).
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) {
    await sql`alter table payment_operation alter column payment_created_at set not null`.execute(db);
  }
  await db.schema
    .createIndex('payment_operation_payment_seq_uq')
    .on('payment_operation')
    .columns(['payment_created_at', 'pay_id', 'seq'])
    .unique()
    .execute();
  await db.schema.dropIndex('payment_operation_seq_uq').execute();

  await db.schema.alterTable('notification').addColumn('payment_created_at', 'varchar(30)').execute();
  await sql`update notification set payment_created_at =
    (select p.created_at from payment p where p.pay_id = notification.pay_id)
    where pay_id is not null`.execute(db);
  await db.schema
    .createIndex('notification_payment_idx')
    .on('notification')
    .columns(['payment_created_at', 'pay_id'])
    .execute();
  await db.schema.dropIndex('notification_pay_id_idx').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('notification_pay_id_idx')
    .on('notification')
    .columns(['merchant_id', 'pay_id'])
    .execute();
  await db.schema.dropIndex('notification_payment_idx').execute();
  await db.schema.alterTable('notification').dropColumn('payment_created_at').execute();
  await db.schema
    .createIndex('payment_operation_seq_uq')
    .on('payment_operation')
    .columns(['pay_id', 'seq'])
    .unique()
    .execute();
  await db.schema.dropIndex('payment_operation_payment_seq_uq').execute();
  await db.schema.alterTable('payment_operation').dropColumn('payment_created_at').execute();
}
