import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from './database.js';

const cache = new Map<string, CompiledQuery>();

/**
 * SQL compiled once per query shape (issue 12: Kysely builds and compiles every query anew, which showed as the
 * largest share of the hot path's CPU once the writer round trips were gone). A shape is a query whose SQL depends
 * only on `key` (table and column names), never on the values: its parameters are `params`, in the order the
 * compiled SQL takes them. The first call builds and compiles the query with `build` and checks that order (a wrong
 * one throws, so a test of the caller catches it); later calls reuse the SQL without building anything.
 *
 * The SQL differs by dialect: the key is made per adapter.
 * @throws Error when the compiled query's parameters are not `params` (a bug in the caller).
 */
export function shaped(
  db: Pick<Kysely<Database>, 'getExecutor'>,
  key: string,
  params: readonly unknown[],
  build: () => { compile(): CompiledQuery },
): CompiledQuery {
  const fullKey = `${db.getExecutor().adapter.constructor.name}\u0000${key}`;
  const cached = cache.get(fullKey);
  // The query node stays the compiled one's (the SQLite driver sends selects to its read connection by it).
  if (cached !== undefined) return { ...cached, parameters: params };
  const compiled = build().compile();
  const same =
    compiled.parameters.length === params.length && compiled.parameters.every((p, i) => Object.is(p, params[i]));
  if (!same) throw new Error(`query shape ${key}: the parameters are not in the compiled order`);
  cache.set(fullKey, compiled);
  return compiled;
}

/** The defined entries of a row (Kysely leaves undefined columns out of an insert or update): keys and values. */
export function definedEntries(row: Record<string, unknown>): { key: string; values: unknown[] } {
  const keys: string[] = [];
  const values: unknown[] = [];
  for (const k in row) {
    const v = row[k];
    if (v === undefined) continue;
    keys.push(k);
    values.push(v);
  }
  return { key: keys.join(','), values };
}
