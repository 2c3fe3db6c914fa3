import { type Kysely, SqliteAdapter, sql } from 'kysely';

// Frozen in time (issue 12): a payment's operations and notifications are indexed by the payment's creation time
// first, so that a new payment's index entries land on the newest leaves instead of one random leaf each. payId is a
// random UUID (DESIGN.md §4), and the former (pay_id, seq) and (merchant_id, pay_id) indexes put every new payment's
// operation and notification on a leaf of its own once the tables are large: in a database of 1,000,000 payments each
// batch wrote and fsynced one such page per index per payment (docs/decisions.md, "Payment locality").
// `payment_created_at` is a copy of `payment.created_at` (the payment's, not the row's: a capture made days later sits
// beside its payment); the statements that write and read these rows take it from the payment row by pay_id.
// An insert that does not give it (a node of the previous release during an upgrade, an operator's script) gets it
// from a trigger, so that no row is written that the reads by (payment_created_at, pay_id) cannot find and the unique
// (payment_created_at, pay_id, seq) index still refuses a second operation with the same seq. Kassa's own inserts
// give it, and the trigger's WHEN clause keeps it from running for them.
// This replaces two indexes the previous release reads by: upgrading is a contract step (docs/operations.md).
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

  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const [table, when] of FILLED) {
      await sql
        .raw(
          `create trigger ${table}_payment_created_at after insert on ${table} when ${when.replaceAll('$row', 'new')}
           begin
             update ${table} set payment_created_at = (select created_at from payment where pay_id = new.pay_id)
             where rowid = new.rowid;
           end`,
        )
        .execute(db);
    }
  } else {
    await sql
      .raw(
        `create function kassa_payment_created_at() returns trigger language plpgsql as $$
          begin
            new.payment_created_at := (select created_at from payment where pay_id = new.pay_id);
            return new;
          end $$`,
      )
      .execute(db);
    for (const [table, when] of FILLED) {
      await sql
        .raw(
          `create trigger ${table}_payment_created_at before insert on ${table} for each row
           when (${when.replaceAll('$row', 'new')}) execute function kassa_payment_created_at()`,
        )
        .execute(db);
    }
  }
}

/** The tables whose inserts get payment_created_at from the payment when they do not give it, and when they need it. */
const FILLED = [
  ['payment_operation', '$row.payment_created_at is null'],
  ['notification', '$row.payment_created_at is null and $row.pay_id is not null'],
] as const;

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  for (const [table] of FILLED) {
    await sql.raw(`drop trigger ${table}_payment_created_at${sqlite ? '' : ` on ${table}`}`).execute(db);
  }
  if (!sqlite) await sql.raw('drop function kassa_payment_created_at()').execute(db);
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
