import { type Kysely, SqliteAdapter, sql } from 'kysely';

// Frozen in time (issue 12): on PostgreSQL the credentials epoch and failed authentications are also announced on the
// channel `kassa_auth` (NOTIFY, delivered to every listening node when the change commits), so that a node can hold
// the epoch in memory instead of reading it per request (storage/postgres-auth-listener.ts).
// - `epoch <n>`: the bump trigger of migration 2026-11-23-0101 now notifies the new epoch.
// - `failure <rate_limit_counter.key>`: an authentication-failure counter (`a:authfail:…`) was created or counted up.
// SQLite has no NOTIFY and one process per file: nothing changes there.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql
    .raw(
      `create or replace function kassa_bump_auth_epoch() returns trigger language plpgsql as $$
        declare bumped bigint;
        begin
          update auth_epoch set epoch = epoch + 1 where id = 1 returning epoch into bumped;
          perform pg_notify('kassa_auth', 'epoch ' || bumped);
          return null;
        end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create function kassa_notify_auth_failure() returns trigger language plpgsql as $$
        begin
          perform pg_notify('kassa_auth', 'failure ' || new.key);
          return null;
        end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger auth_failure_notify after insert or update on rate_limit_counter for each row
        when (new.key like 'a:authfail:%') execute function kassa_notify_auth_failure()`,
    )
    .execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql.raw('drop trigger auth_failure_notify on rate_limit_counter').execute(db);
  await sql.raw('drop function kassa_notify_auth_failure()').execute(db);
  await sql
    .raw(
      `create or replace function kassa_bump_auth_epoch() returns trigger language plpgsql as $$
        begin update auth_epoch set epoch = epoch + 1 where id = 1; return null; end $$`,
    )
    .execute(db);
}
