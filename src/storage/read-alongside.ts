import type { SelectQueryBuilder } from 'kysely';
import type { Database } from './database.js';

/**
 * A single-row SELECT that another read may run inside its own statement (issue 12: on SQLite the credentials check and
 * a lookup by payId or transId are one statement, one read transaction, instead of two): the other read left-joins it
 * as a derived table, `alongside`, and hands the joined row to `parse`. With no matching row every column of
 * `alongside` is NULL, which `parse` answers (e.g. undefined: not found).
 */
export interface ReadAlongside<T> {
  /** Names the query's shape (query-shapes.ts): its SQL depends on this key alone, never on the values. */
  readonly shape: string;
  /** The query's parameters, in the order its compiled SQL takes them. */
  readonly params: readonly unknown[];
  /** Builds the query (called once per shape). */
  build(): SelectQueryBuilder<Database, keyof Database, Record<string, unknown>>;
  /** The value of the joined row (its other columns, the host read's, are ignored). */
  parse(row: Readonly<Record<string, unknown>>): T;
}
