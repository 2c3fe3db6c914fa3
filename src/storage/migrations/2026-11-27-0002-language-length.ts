import { type Kysely, SqliteAdapter, sql } from 'kysely';

// Frozen in time: `language` (payment, checkout_session) holds the whole tag the API accepts, up to 35 characters
// (contracts' `Language`, wire §2: "never refused"; BCP 47 tags such as `zh-Hant-TW`). It was `varchar(8)`, which
// PostgreSQL enforces: a longer tag failed the payment's INSERT with a 500. SQLite does not enforce a declared length,
// so there is nothing to change there.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  for (const table of ['payment', 'checkout_session']) {
    await sql`alter table ${sql.table(table)} alter column language type varchar(35)`.execute(db);
  }
}

// A row with a tag longer than 8 characters makes `down` fail rather than cut the tag.
// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  for (const table of ['payment', 'checkout_session']) {
    await sql`alter table ${sql.table(table)} alter column language type varchar(8)`.execute(db);
  }
}
