import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../src/storage/create-db.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { type KassaBehindProxy, startKassaBehindProxy } from '../helpers/kassa-behind-proxy.js';
import type { TcpProxy } from '../helpers/tcp-proxy.js';
import type { TestKassa } from '../helpers/test-kassa.js';

/**
 * Kassa behind a TCP proxy in front of the real PostgreSQL (PostgreSQL itself keeps running): the proxy cuts every
 * connection, as a failover or a NAT timeout does, and refuses new ones for a while. The process must survive,
 * answer 503 problem+json meanwhile, and resume by itself; nothing it acknowledged may be lost.
 */
describe.skipIf(!DIALECTS.includes('postgres'))('PostgreSQL connections dropped under Kassa', () => {
  let k: KassaBehindProxy;
  let t: TestKassa;
  let proxy: TcpProxy;
  let db: Db;
  let m: { merchantId: string; apiKey: string };
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => uncaught.push(e);

  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    k = await startKassaBehindProxy();
    ({ t, proxy, db } = k);
    m = await t.createMerchant();
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await k?.close();
  });

  const pay = () => t.call('POST', '/api/v1/payments', { auth: m, json: directPayment(testPan('40000000', '1000')) });

  it('a connection dropped inside a transaction fails that transaction, not the process', async () => {
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        await trx.selectFrom('merchant').select('merchant_id').execute();
        proxy.cut();
        // The checked-out client learns of the closed socket between two statements: pg emits 'error' on it.
        await vi.waitFor(() => expect(proxy.openConnections()).toBe(0));
        await new Promise((resolve) => setImmediate(resolve));
        await trx.selectFrom('merchant').select('merchant_id').execute();
      }),
    ).rejects.toThrow();
    expect(uncaught).toEqual([]);
  });

  it('while PostgreSQL is unreachable: 503 DATABASE_UNAVAILABLE and /readyz 503; afterwards it resumes by itself', async () => {
    const before = await pay();
    expect(before.status).toBe(201);

    await proxy.refuse();
    const during = await pay();
    expect(during.status).toBe(503);
    expect(during.headers.get('content-type')).toContain('application/problem+json');
    expect(during.body.code).toBe('DATABASE_UNAVAILABLE');
    expect(during.text).not.toContain('127.0.0.1');
    const read = await t.call('GET', `/api/v1/payments/getByPayId/${before.body.payId}`, { auth: m });
    expect(read.status).toBe(503);
    expect((await t.call('GET', '/readyz')).status).toBe(503);
    expect((await t.call('GET', '/healthz')).status).toBe(200);

    await proxy.accept();
    await vi.waitFor(async () => expect((await t.call('GET', '/readyz')).status).toBe(200), { timeout: 10_000 });
    const after = await pay();
    expect(after.status).toBe(201);
    // What was acknowledged before the cut is still there.
    const again = await t.call('GET', `/api/v1/payments/getByPayId/${before.body.payId}`, { auth: m });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe(before.body.status);
    expect(uncaught).toEqual([]);
  });

  it('a cut while requests are in flight: each answers 201 or 503, and every 201 is stored', async () => {
    const answers = Promise.all(Array.from({ length: 12 }, () => pay()));
    setTimeout(() => proxy.cut(), 5);
    const results = await answers;
    for (const r of results) expect([201, 503]).toContain(r.status);
    for (const r of results.filter((x) => x.status === 201)) {
      await vi.waitFor(async () => {
        const read = await t.call('GET', `/api/v1/payments/getByPayId/${r.body.payId}`, { auth: m });
        expect(read.status).toBe(200);
      });
    }
    expect(uncaught).toEqual([]);
  });
});
