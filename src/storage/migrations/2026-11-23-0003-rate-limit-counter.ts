import type { Kysely } from 'kysely';

// Frozen in time: counters of the rate limits shared by every node on one database (issue 14), when no Redis is
// configured. `reset_at` is the end of the key's current window in Unix milliseconds.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_limit_counter')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('reset_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limit_counter_reset_at').on('rate_limit_counter').column('reset_at').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limit_counter').execute();
}
