import { type Kysely, sql } from 'kysely';

// Frozen in time (issue 12): the indexes that only the background sweeps read hold only the rows those sweeps look
// for. A payment's status (payment_status_created_idx), its automatic capture time (payment_capture_due_idx) and an
// operation's status (payment_operation_status_created_idx) were indexed for every row, so every DIRECT payment
// inserted an entry in each at its intent and moved it at its result, though the sweeps only ever look for waiting
// hosted payments, delayed captures that are due, and follow-ups still PENDING. Partial, a DIRECT payment with
// AUTOMATIC capture enters none of them: fewer pages in each SQLite commit and fewer index insertions on PostgreSQL
// (where the result's UPDATE of `status` is never HOT: every index of `payment` gets an entry for the new version).
// The sweeps' queries name the same conditions with literal values (storage/payment-repository.kysely.ts,
// storage/follow-up-operation-repository.kysely.ts), which both planners need to choose a partial index; a
// capture_due_at comparison implies capture_due_at is not null. Reads by a release before this one still find their
// rows (they filter by the same conditions), so upgrading needs no contract step.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payment_status_created_idx').execute();
  await db.schema
    .createIndex('payment_status_created_idx')
    .on('payment')
    .columns(['status', 'created_at'])
    .where(sql<boolean>`status = 'PENDING' and integration_type = 'HOSTED'`)
    .execute();
  await db.schema.dropIndex('payment_capture_due_idx').execute();
  await db.schema
    .createIndex('payment_capture_due_idx')
    .on('payment')
    .column('capture_due_at')
    .where(sql<boolean>`capture_due_at is not null`)
    .execute();
  await db.schema.dropIndex('payment_operation_status_created_idx').execute();
  await db.schema
    .createIndex('payment_operation_status_created_idx')
    .on('payment_operation')
    .columns(['status', 'created_at'])
    .where(sql<boolean>`status = 'PENDING'`)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payment_status_created_idx').execute();
  await db.schema.createIndex('payment_status_created_idx').on('payment').columns(['status', 'created_at']).execute();
  await db.schema.dropIndex('payment_capture_due_idx').execute();
  await db.schema.createIndex('payment_capture_due_idx').on('payment').column('capture_due_at').execute();
  await db.schema.dropIndex('payment_operation_status_created_idx').execute();
  await db.schema
    .createIndex('payment_operation_status_created_idx')
    .on('payment_operation')
    .columns(['status', 'created_at'])
    .execute();
}
