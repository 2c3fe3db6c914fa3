import { type Kysely, sql } from 'kysely';

// Frozen in time: the Paygate v2 wire fields (paygate-v2-wire.md §2). `informational` holds the create request's
// informational members as JSON text (statementDescriptor, customerInfo's siblings, …) on payments and sessions;
// an operation keeps the merchant's transId of it; channels take Paygate's names (BROWSER becomes ECOM).
// biome-ignore lint/suspicious/noExplicitAny: Kysely's guidance: migrations must not depend on the app's current row types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment').addColumn('informational', 'text').execute();
  await db.schema.alterTable('checkout_session').addColumn('informational', 'text').execute();
  await db.schema.alterTable('payment_operation').addColumn('trans_id', 'text').execute();
  await sql`update payment set channel = 'ECOM' where channel = 'BROWSER'`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await sql`update payment set channel = 'BROWSER' where channel <> 'APP'`.execute(db);
  await db.schema.alterTable('payment_operation').dropColumn('trans_id').execute();
  await db.schema.alterTable('checkout_session').dropColumn('informational').execute();
  await db.schema.alterTable('payment').dropColumn('informational').execute();
}
