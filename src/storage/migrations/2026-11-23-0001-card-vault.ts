import type { Kysely } from 'kysely';

// Frozen in time: the card vault (PCI DSS 3.5/3.6) — data-encryption keys with ids, and stored cards encrypted
// under them. Nothing in these tables is a card number in clear.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  // One row per data-encryption key. The key itself is wrapped (AES-256-GCM) under the key-encryption key derived
  // from KASSA_DATA_KEY; a retired key's material is erased (wrapped_key '') and the row kept for the record.
  await db.schema
    .createTable('card_key')
    .addColumn('key_id', 'integer', (c) => c.primaryKey())
    .addColumn('wrapped_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('retired_at', 'varchar(30)')
    .execute();

  // Stored credentials: one per (merchant, pseudo card number). A deleted card keeps its row without the ciphertext,
  // so that later payments with it get a clear "deleted" answer.
  await db.schema
    .createTable('stored_card')
    .addColumn('merchant_id', 'varchar(64)', (c) => c.notNull().references('merchant.merchant_id'))
    .addColumn('pseudo_card_number', 'char(16)', (c) => c.notNull())
    .addColumn('fingerprint', 'char(64)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('key_id', 'integer', (c) => c.references('card_key.key_id'))
    .addColumn('iv', 'varchar(24)')
    .addColumn('ciphertext', 'text')
    .addColumn('tag', 'varchar(24)')
    .addColumn('brand', 'varchar(16)', (c) => c.notNull())
    .addColumn('bin', 'varchar(8)', (c) => c.notNull())
    .addColumn('last4', 'char(4)', (c) => c.notNull())
    .addColumn('expiry_date', 'char(6)', (c) => c.notNull())
    .addColumn('credential_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('scheme_reference_id', 'varchar(64)')
    .addColumn('initial_pay_id', 'char(32)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(30)', (c) => c.notNull())
    .addColumn('deleted_at', 'varchar(30)')
    .addPrimaryKeyConstraint('stored_card_pk', ['merchant_id', 'pseudo_card_number'])
    .execute();
  await db.schema.createIndex('stored_card_key_idx').on('stored_card').column('key_id').execute();
  // The re-encryption sweep finds 3-D Secure cards under an old key without scanning.
  await db.schema.createIndex('pending_card_key_idx').on('pending_card').column('key_version').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('pending_card_key_idx').execute();
  await db.schema.dropTable('stored_card').execute();
  await db.schema.dropTable('card_key').execute();
}
