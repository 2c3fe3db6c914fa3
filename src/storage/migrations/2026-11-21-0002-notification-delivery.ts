import type { Kysely } from 'kysely';

// Frozen in time, like every migration: it must not import the app's row types.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  // A dispatcher's claim on a due notification (DESIGN.md §5): until this time no other dispatcher takes it; after
  // it (the claimer crashed) any dispatcher may. NULL: not claimed.
  await db.schema.alterTable('notification').addColumn('locked_until', 'varchar(30)').execute();

  // Every delivery attempt: when, how long, and the HTTP status or the network error.
  await db.schema
    .createTable('notification_attempt')
    .addColumn('notification_id', 'varchar(64)', (c) => c.notNull().references('notification.id'))
    .addColumn('attempt_no', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('error', 'varchar(500)')
    .addPrimaryKeyConstraint('notification_attempt_pk', ['notification_id', 'attempt_no'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('notification_attempt').execute();
  await db.schema.alterTable('notification').dropColumn('locked_until').execute();
}
