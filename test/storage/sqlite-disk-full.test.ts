import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

/**
 * SQLite out of space, as on a full disk: `PRAGMA max_page_count` on the writer's connection (a unit of the writer
 * thread like any write) caps the file at its current size, and SQLite then answers SQLITE_FULL as it does for ENOSPC.
 */
describe('SQLite database or disk full', () => {
  let t: TestKassa;
  let m: { merchantId: string; apiKey: string };
  beforeAll(async () => {
    t = await startTestKassa('sqlite');
    m = await t.createMerchant();
  });
  afterAll(async () => {
    await t?.close();
  });
  const pay = () => t.call('POST', '/api/v1/payments', { auth: m, json: directPayment(testPan('40000000', '1000')) });
  const capPages = async (pages: number | 'current') => {
    const current = await sql<{ page_count: number }>`pragma page_count`.execute(t.kassa.db.kysely);
    const cap = pages === 'current' ? Number(current.rows[0]?.page_count) : pages;
    await sql.raw(`pragma max_page_count = ${cap}`).execute(t.kassa.db.kysely);
  };

  it('while writes fail with SQLITE_FULL: 503 DATABASE_UNAVAILABLE problem+json with Retry-After; afterwards it resumes by itself', async () => {
    expect((await pay()).status).toBe(201);

    await capPages('current');
    const during = await pay();
    expect(during.status).toBe(503);
    expect(during.headers.get('content-type')).toContain('application/problem+json');
    expect(during.headers.get('retry-after')).toBe('5');
    expect(during.body).toMatchObject({ code: 'DATABASE_UNAVAILABLE', status: 503 });
    expect(t.logs()).toContain('SQLITE_FULL');

    await capPages(1_000_000);
    expect((await pay()).status).toBe(201);
  });
});
