import { type Kysely, SqliteAdapter, sql } from 'kysely';

// Frozen in time: the credentials epoch (issue 12). Every node caches API keys and merchants in memory and reads this
// one row per request; any change to a key or a merchant row bumps it (triggers, so no writer can forget), which
// empties every node's cache at its next request: a revoked key fails at once on every node.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('auth_epoch')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('epoch', 'bigint', (c) => c.notNull())
    .execute();
  await db.insertInto('auth_epoch').values({ id: 1, epoch: 0 }).execute();
  const bump = 'update auth_epoch set epoch = epoch + 1 where id = 1';
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const [table, event] of [
      ['api_key', 'update'],
      ['api_key', 'delete'],
      ['merchant', 'update'],
      ['merchant', 'delete'],
    ] as const) {
      await sql
        .raw(`create trigger auth_epoch_${table}_${event} after ${event} on ${table} begin ${bump}; end`)
        .execute(db);
    }
    return;
  }
  await sql
    .raw(
      `create function kassa_bump_auth_epoch() returns trigger language plpgsql as $$ begin ${bump}; return null; end $$`,
    )
    .execute(db);
  for (const table of ['api_key', 'merchant']) {
    await sql
      .raw(
        `create trigger auth_epoch_${table} after update or delete on ${table} for each statement execute function kassa_bump_auth_epoch()`,
      )
      .execute(db);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const t of ['api_key_update', 'api_key_delete', 'merchant_update', 'merchant_delete']) {
      await sql.raw(`drop trigger auth_epoch_${t}`).execute(db);
    }
  } else {
    await sql.raw('drop trigger auth_epoch_api_key on api_key').execute(db);
    await sql.raw('drop trigger auth_epoch_merchant on merchant').execute(db);
    await sql.raw('drop function kassa_bump_auth_epoch()').execute(db);
  }
  await db.schema.dropTable('auth_epoch').execute();
}
