import { type Kysely, sql } from 'kysely';

// Frozen in time (issue 9, defect 1): idempotency fingerprints written before the keyed fingerprint were unkeyed
// SHA-256 hashes of the whole request, card number and CVC included, which a reader of the database could confirm
// guesses against; their stored answers held the card summary in clear. Both are erased. The key of such a row stays
// (so a retry with it is refused 422 IDEMPOTENCY_KEY_REUSED instead of running twice) until its 24 h retention ends.
const ERASED = '0'.repeat(64);

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the app's current row types (Kysely)
export async function up(db: Kysely<any>): Promise<void> {
  await sql`update idempotency_key set request_hash = ${ERASED}, response_body = null`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(_db: Kysely<any>): Promise<void> {
  // Nothing to restore: the erased values are gone by design.
}
