import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/database.js';

/** The outbox events written for a payment, oldest first; with `typePrefix` (e.g. `payment.`) only those types. */
export async function outboxEvents(
  kysely: Kysely<Database>,
  payId: string,
  typePrefix?: string,
): Promise<{ type: string; payload: Record<string, unknown> }[]> {
  let query = kysely
    .selectFrom('notification')
    .select(['type', 'payload', 'created_at'])
    .where('pay_id', '=', payId)
    .orderBy('created_at')
    .orderBy('id'); // as the notifications API orders them: ids are time-ordered (UUID v7), created_at ties
  if (typePrefix !== undefined) query = query.where('type', 'like', `${typePrefix}%`);
  const rows = await query.execute();
  return rows.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}
