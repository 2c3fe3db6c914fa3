import { createHash } from 'node:crypto';
import type pg from 'pg';

/** Distinct statement texts named at most per process (each connection prepares those it runs). */
export const PREPARED_STATEMENTS_MAX = 1_000;

/** PostgreSQL's answer when a prepared statement's result columns changed under it (a migration added one). */
const PLAN_RESULT_CHANGED = '0A000';

/**
 * The names of the statements a process prepares: derived from the text (SHA-256), so one text is one statement on
 * every connection, and a generation in the name. When PostgreSQL refuses a prepared statement whose result columns
 * changed (`cached plan must not change result type`: another node's migration added a column to a `select *`),
 * `renew` starts a new generation: every text is prepared afresh under a new name on its next run, and only the
 * statements already under way fail.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private generation = 0;

  /** The name of `text`, or undefined once `PREPARED_STATEMENTS_MAX` texts have names (it then runs unnamed). */
  of(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < PREPARED_STATEMENTS_MAX) {
      name = `k${this.generation}_${createHash('sha256').update(text).digest('base64url').slice(0, 40)}`;
      this.names.set(text, name);
    }
    return name;
  }

  /** Forgets every name: the next run of each text prepares it again, under a new one. */
  renew(): void {
    this.generation++;
    this.names.clear();
  }
}

/**
 * Makes a pg client run statements as named prepared statements (issue 12). node-postgres sends an unnamed statement
 * by default, which PostgreSQL parses, analyses and plans anew on every execution: a payment's result statement (one
 * WITH of six writes) spent ~1 ms in planning, as long as in execution. A named statement is parsed once per
 * connection and its plan cached by the server (https://www.postgresql.org/docs/current/sql-prepare.html);
 * node-postgres sends Parse only the first time a connection runs the name. Measured here: DIRECT payments
 * 486–550 → 712/s, getByPayId 1,851–1,947 → 2,976/s.
 *
 * Kysely's PostgreSQL driver calls `client.query(text, values)`: that form is the one changed; every other passes
 * through. Texts beyond `PREPARED_STATEMENTS_MAX` run unnamed, so a stream of ever-new texts cannot grow every
 * session's prepared statements without bound. A pooler in transaction mode that cannot keep prepared statements
 * (PgBouncer before 1.21) needs `KASSA_POSTGRES_PREPARED=off`.
 */
export function preparingStatements(client: pg.PoolClient, names: StatementNames): void {
  // The class's own method, looked up at each call (as a test's spy on pg.Client.prototype.query sees it).
  const query = (...args: unknown[]) =>
    (Object.getPrototypeOf(client).query as (...a: unknown[]) => Promise<unknown>).apply(client, args);
  (client as { query: unknown }).query = (text: unknown, values?: unknown, ...rest: unknown[]) => {
    if (typeof text !== 'string' || !Array.isArray(values) || rest.length > 0) return query(text, values, ...rest);
    const name = names.of(text);
    if (name === undefined) return query(text, values);
    return query({ name, text, values }).catch((error: { code?: string }) => {
      if (error?.code === PLAN_RESULT_CHANGED) names.renew();
      throw error;
    });
  };
}
