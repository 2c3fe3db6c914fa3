import type { Kysely } from 'kysely';

// Frozen in time: this migration must not import the app's row types, which move on.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  // Per-payment 3-D Secure state between AReq and final result (challenge, decoupled, 3DS Method redirect).
  await db.schema
    .createTable('three_ds_transaction')
    .addColumn('pay_id', 'char(32)', (c) => c.primaryKey().references('payment.pay_id'))
    .addColumn('merchant_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('phase', 'varchar(16)', (c) => c.notNull())
    .addColumn('three_ds_method_url', 'varchar(2048)')
    .addColumn('method_status', 'varchar(16)', (c) => c.notNull())
    .addColumn('method_started_at', 'varchar(30)')
    .addColumn('three_ds_comp_ind', 'char(1)')
    .addColumn('acs_trans_id', 'char(36)')
    .addColumn('ds_trans_id', 'char(36)')
    .addColumn('acs_url', 'varchar(2048)')
    .addColumn('message_version', 'varchar(8)')
    .addColumn('challenge_window_size', 'char(2)')
    .addColumn('creq', 'text')
    .addColumn('authentication', 'text')
    // Only the nonce of the redirect token is stored; the token is an HMAC of it under a key derived from the data key.
    .addColumn('redirect_nonce', 'varchar(64)', (c) => c.notNull())
    .addColumn('redirect_expires_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('three_ds_transaction_expiry_idx')
    .on('three_ds_transaction')
    .columns(['phase', 'redirect_expires_at'])
    .execute();

  // Card data between AReq and final result, AES-256-GCM encrypted (never in clear); deleted when the payment ends.
  await db.schema
    .createTable('pending_card')
    .addColumn('pay_id', 'char(32)', (c) => c.primaryKey().references('payment.pay_id'))
    .addColumn('key_version', 'varchar(8)', (c) => c.notNull())
    .addColumn('iv', 'varchar(24)', (c) => c.notNull())
    .addColumn('ciphertext', 'text', (c) => c.notNull())
    .addColumn('tag', 'varchar(24)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(30)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pending_card_expiry_idx').on('pending_card').column('expires_at').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('pending_card').execute();
  await db.schema.dropTable('three_ds_transaction').execute();
}
