import type { Kysely } from 'kysely';

// Frozen in time: write-ahead follow-ups (issue 9 defect 3). A capture, refund or reversal is recorded PENDING before
// the acquirer is called and completed after; `claimed_until` is the recovery sweep's lease on a PENDING one.
// `request_key` is the merchant's Idempotency-Key of the request that created it. `final_capture` (1) marks a capture sent with Paygate `finishAuth: "Y"`. `payment.capture_due_at` is when a DELAYED
// payment is captured automatically (set when it is authorized, cleared once captured or reversed).
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_operation').addColumn('final_capture', 'integer').execute();
  await db.schema.alterTable('payment_operation').addColumn('claimed_until', 'varchar(30)').execute();
  await db.schema.alterTable('payment_operation').addColumn('request_key', 'varchar(255)').execute();
  await db.schema
    .createIndex('payment_operation_status_created_idx')
    .on('payment_operation')
    .columns(['status', 'created_at'])
    .execute();
  await db.schema.alterTable('payment').addColumn('capture_due_at', 'varchar(30)').execute();
  await db.schema.alterTable('payment').addColumn('capture_claimed_until', 'varchar(30)').execute();
  await db.schema.createIndex('payment_capture_due_idx').on('payment').column('capture_due_at').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payment_capture_due_idx').execute();
  await db.schema.alterTable('payment').dropColumn('capture_claimed_until').execute();
  await db.schema.alterTable('payment').dropColumn('capture_due_at').execute();
  await db.schema.dropIndex('payment_operation_status_created_idx').execute();
  await db.schema.alterTable('payment_operation').dropColumn('request_key').execute();
  await db.schema.alterTable('payment_operation').dropColumn('claimed_until').execute();
  await db.schema.alterTable('payment_operation').dropColumn('final_capture').execute();
}
