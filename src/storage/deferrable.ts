import type { CompiledQuery } from 'kysely';

const deferrableQueries = new WeakSet<CompiledQuery>();

/**
 * Marks a compiled write (no `returning`) whose result its caller does not read, inside a transaction (issue 12):
 * - on SQLite it is queued with the unit instead of sent on its own, so a unit of such writes rides along with its
 *   batch's COMMIT in one message to the writer thread (sqlite-group-commit.ts);
 * - on PostgreSQL the transaction's queued writes go to the server as ONE statement (data-modifying WITH), before the
 *   next statement that needs an answer or as the whole transaction when none does (postgres-deferring-driver.ts).
 * Its error, if any, fails the transaction at that point (at the latest its commit), rolled back whole, as any
 * failing statement does. The rules it must keep: it reads nothing another deferrable write of the same transaction
 * wrote (on PostgreSQL they run as one statement, on one snapshot), and on PostgreSQL its SQL has no string literal.
 * Outside a transaction it runs as usual.
 * @returns `query`, for chaining into `executeQuery`.
 */
export function deferrable<Q extends CompiledQuery>(query: Q): Q {
  deferrableQueries.add(query);
  return query;
}

/** Whether `query` was marked `deferrable`. */
export function isDeferrable(query: CompiledQuery): boolean {
  return deferrableQueries.has(query);
}
