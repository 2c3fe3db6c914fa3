/**
 * Partial sweep indexes (issue 12, migration 2026-11-27-0001): the indexes only the background sweeps read hold only
 * the rows those sweeps look for, so a DIRECT payment with AUTOMATIC capture enters none of them. What must hold: the
 * indexes are partial, and each sweep's statement is planned through its index (a partial index is chosen only when
 * the query's own condition implies the index's: a bound parameter does not, so the sweeps write literals), on
 * PostgreSQL also as a generic plan (Kassa's statements are named prepared statements).
 */
import { type CompiledQuery, DefaultQueryCompiler, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { directCommand } from '../domain/threeds/three-ds-fixtures.js';
import { DIALECTS } from '../helpers/dialects.js';
import { type ServiceHarness, startServiceHarness } from '../helpers/service-harness.js';

const PARTIAL = {
  payment_status_created_idx: /where .*status.* = 'PENDING'.* and .*integration_type.* = 'HOSTED'/i,
  payment_capture_due_idx: /where .*capture_due_at.* is not null/i,
  payment_operation_status_created_idx: /where .*status.* = 'PENDING'/i,
} as const;

describe.each(DIALECTS)('partial sweep indexes (%s)', (dialect) => {
  let h: ServiceHarness;

  beforeAll(async () => {
    h = await startServiceHarness(dialect, { merchantId: `psi_${dialect}` });
  });
  afterAll(async () => h?.close());

  /** The index's definition as the database keeps it. */
  async function definition(name: string): Promise<string> {
    const query =
      dialect === 'sqlite'
        ? sql<{ def: string }>`select sql as def from sqlite_master where type = 'index' and name = ${name}`
        : sql<{ def: string }>`select indexdef as def from pg_indexes where indexname = ${name}`;
    return (await query.execute(h.database.db.kysely)).rows[0]?.def ?? '';
  }

  it.each(Object.entries(PARTIAL))('%s is partial', async (name, condition) => {
    expect(await definition(name)).toMatch(condition);
  });

  /** The SQL (and parameters) Kysely compiled for `run`. */
  async function compiledBy(run: () => Promise<unknown>): Promise<CompiledQuery[]> {
    const spy = vi.spyOn(DefaultQueryCompiler.prototype, 'compileQuery');
    try {
      await run();
      return spy.mock.results.map((r) => r.value as CompiledQuery);
    } finally {
      spy.mockRestore();
    }
  }

  /** The plan of `query`: SQLite's EXPLAIN QUERY PLAN; PostgreSQL's generic plan, sequential scans refused. */
  async function planOf(query: CompiledQuery): Promise<string> {
    if (dialect === 'sqlite') {
      const plan = await h.database.db.kysely.executeQuery<{ detail: string }>({
        ...query,
        sql: `explain query plan ${query.sql}`,
      });
      return plan.rows.map((r) => r.detail).join('\n');
    }
    const client = new pg.Client({ connectionString: h.database.url });
    await client.connect();
    try {
      // On an almost empty table a sequential scan is cheapest; refused, the plan shows which index can serve.
      await client.query('set enable_seqscan = off');
      await client.query('set plan_cache_mode = force_generic_plan');
      await client.query(`prepare sweep as ${query.sql}`);
      const args = query.parameters.map((p) => (typeof p === 'number' ? String(p) : client.escapeLiteral(String(p))));
      const plan = await client.query<{ 'QUERY PLAN': string }>(`explain execute sweep(${args.join(', ')})`);
      return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.end();
    }
  }

  it.each([
    [
      'the hosted expiry sweep (waiting hosted payments)',
      'payment_status_created_idx',
      "'PENDING'",
      (s: ServiceHarness) => s.store.payments.findWaitingHostedCreatedBefore(new Date(), 10),
    ],
    [
      'the follow-up recovery sweep (PENDING operations)',
      'payment_operation_status_created_idx',
      "'PENDING'",
      (s: ServiceHarness) =>
        s.store.followUpOperations.claimPending(new Date(), new Date(), new Date(Date.now() + 60_000), 10),
    ],
    [
      'the delayed capture sweep (captures due)',
      'payment_capture_due_idx',
      'capture_due_at',
      (s: ServiceHarness) => s.store.followUpOperations.claimDueCaptures(new Date(), new Date(Date.now() + 60_000), 10),
    ],
  ])('%s is planned through %s', async (_, index, condition, sweep) => {
    // The sweep's statement: the one whose SQL names the index's condition (a claim also reads the payments' owners).
    const compiled = await compiledBy(() => sweep(h));
    const statement = compiled.find((q) => q.sql.includes(condition));
    expect(statement, compiled.map((q) => q.sql).join('\n')).toBeDefined();
    expect(await planOf(statement as CompiledQuery)).toContain(index);
  });

  it("a capture scheduled on a DIRECT payment's row enters the partial index and the sweep claims it", async () => {
    const merchant = h.merchant;
    const direct = await h.services.payments.createDirectPayment(
      merchant,
      directCommand(merchant.merchantId, { transId: 'psi-direct' }),
    );
    expect(direct.status).toBe('OK');
    await h.store.followUpOperations.scheduleCapture(direct.payId, new Date(Date.now() - 1_000));
    const due = await h.store.followUpOperations.claimDueCaptures(new Date(), new Date(Date.now() + 60_000), 10);
    expect(due).toEqual([{ payId: direct.payId, merchantId: merchant.merchantId }]);
  });
});
