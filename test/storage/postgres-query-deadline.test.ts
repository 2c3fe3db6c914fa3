import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { openDatabase } from '../../src/services.js';
import { createDb, type Db, migrateToLatest } from '../../src/storage/create-db.js';
import { PostgresConnectTimeoutError, PostgresQueryTimeoutError } from '../../src/storage/postgres-query-deadline.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { type KassaBehindProxy, startKassaBehindProxy } from '../helpers/kassa-behind-proxy.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import type { TestKassa } from '../helpers/test-kassa.js';

const sleep = (db: Db, seconds: number) => sql`select pg_sleep(${seconds})`.execute(db.kysely);
const timed = async (run: () => Promise<unknown>) => {
  const started = performance.now();
  const outcome = await run().then(
    () => 'answered',
    (error: unknown) => error,
  );
  return { outcome, ms: performance.now() - started };
};

describe.skipIf(!DIALECTS.includes('postgres'))('PostgreSQL query deadline (PostgresDeadlinePool)', () => {
  let target: FreshDatabase;
  const opened: Db[] = [];
  const open = (queryTimeoutMs: number, poolSize = 1) => {
    const db = createDb({ dialect: 'postgres', url: target.url, poolSize, queryTimeoutMs });
    opened.push(db);
    return db;
  };

  beforeAll(async () => {
    target = await freshDatabase('postgres');
  });
  afterAll(async () => {
    for (const db of opened) await db.close().catch(() => undefined);
    await target?.drop();
  });

  it('a query past its deadline fails with ETIMEDOUT, and the next one gets a new connection at once', async () => {
    const db = open(300); // one connection: a reused one would hold the next query behind pg_sleep(5)
    const late = await timed(() => sleep(db, 5));
    expect(late.outcome).toBeInstanceOf(PostgresQueryTimeoutError);
    expect(late.outcome).toMatchObject({ code: 'ETIMEDOUT', timeoutMs: 300 });
    expect(late.ms).toBeGreaterThanOrEqual(290);
    expect(late.ms).toBeLessThan(2_000);
    const next = await timed(() => sql`select 1 as one`.execute(db.kysely));
    expect(next.outcome).toBe('answered');
    expect(next.ms).toBeLessThan(2_000);
  });

  it('inside a transaction the rest of that checkout fails at once: ROLLBACK does not wait out a second deadline', async () => {
    const db = open(1_000);
    const run = await timed(() =>
      db.kysely.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await sql`select pg_sleep(5)`.execute(trx);
      }),
    );
    expect(run.outcome).toBeInstanceOf(PostgresQueryTimeoutError);
    expect(run.ms).toBeLessThan(1_800);
    expect((await timed(() => sql`select 1`.execute(db.kysely))).outcome).toBe('answered');
  });

  it('no deadline by default, and one set later applies to the queries sent after it', async () => {
    const db = open(0);
    expect((await timed(() => sleep(db, 0.5))).outcome).toBe('answered');
    db.setQueryTimeout?.(200);
    expect((await timed(() => sleep(db, 0.5))).outcome).toBeInstanceOf(PostgresQueryTimeoutError);
    db.setQueryTimeout?.(0);
    expect((await timed(() => sleep(db, 0.5))).outcome).toBe('answered');
  });

  it('no connection within the connect timeout fails with ETIMEDOUT too: none free, or a server that accepts and is silent', async () => {
    const db = createDb({
      dialect: 'postgres',
      url: target.url,
      poolSize: 1,
      queryTimeoutMs: 0,
      connectTimeoutMs: 300,
    });
    opened.push(db);
    const holding = sleep(db, 1); // the pool's one connection, for a second
    const waiting = await timed(() => sql`select 1`.execute(db.kysely));
    expect(waiting.outcome).toBeInstanceOf(PostgresConnectTimeoutError);
    expect(waiting.outcome).toMatchObject({
      code: 'ETIMEDOUT',
      cause: { message: 'timeout exceeded when trying to connect' },
    });
    await holding;

    const url = new URL(target.url);
    const proxy = await startTcpProxy(url.hostname, Number(url.port || 5432));
    try {
      proxy.stall(); // accepts connections and answers nothing
      url.port = String(proxy.port);
      const silent = createDb({ dialect: 'postgres', url: url.toString(), poolSize: 1, connectTimeoutMs: 300 });
      opened.push(silent);
      const connecting = await timed(() => sql`select 1`.execute(silent.kysely));
      expect(connecting.outcome).toBeInstanceOf(PostgresConnectTimeoutError);
      expect(connecting.outcome).toMatchObject({
        code: 'ETIMEDOUT',
        cause: { message: 'Connection terminated due to connection timeout' },
      });
      expect(connecting.ms).toBeLessThan(2_000);
    } finally {
      await proxy.close();
    }
  });

  it('openDatabase runs the migrations without a deadline and sets KASSA_POSTGRES_QUERY_TIMEOUT after them', async () => {
    const config = loadConfig({ DATABASE_URL: target.url, KASSA_POSTGRES_QUERY_TIMEOUT: '1' });
    const db = await openDatabase(config, undefined, async (migrating) => {
      await sleep(migrating, 1.5); // a migration longer than the deadline (an index built over every payment)
      await migrateToLatest(migrating);
    });
    opened.push(db);
    expect((await timed(() => sleep(db, 1.5))).outcome).toBeInstanceOf(PostgresQueryTimeoutError);
  });
});

/**
 * Kassa on PostgreSQL behind a TCP proxy that stalls: connections stay open and nothing comes back (a primary gone
 * silent in a failover, a frozen VM). Requests must fail within the deadline instead of hanging until TCP gives up,
 * and once the database answers again (new connections are carried) Kassa serves without a restart.
 */
describe.skipIf(!DIALECTS.includes('postgres'))('Kassa when PostgreSQL stops answering', () => {
  let k: KassaBehindProxy;
  let t: TestKassa;
  let proxy: TcpProxy;
  let m: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    k = await startKassaBehindProxy({ queryTimeoutMs: 1_000, connectTimeoutMs: 1_000 });
    ({ t, proxy } = k);
    m = await t.createMerchant();
  });
  afterAll(async () => {
    await k?.close();
  });

  const pay = () => t.call('POST', '/api/v1/payments', { auth: m, json: directPayment(testPan('40000000', '1000')) });

  it('answers 503 within seconds while it is silent, and serves again once it answers', {
    timeout: 60_000,
  }, async () => {
    const before = await pay();
    expect(before.status).toBe(201);
    const read = () => t.call('GET', `/api/v1/payments/getByPayId/${before.body.payId}`, { auth: m });
    expect((await read()).status).toBe(200);

    await Promise.all([read(), read(), read(), read()]); // connections in the pool, as a node under load has
    proxy.stall();
    const during = await timed(async () => {
      const [token, ...answers] = await Promise.all([
        t.call('POST', '/authorization/oauth/token', {
          form: { grant_type: 'client_credentials', client_id: m.merchantId, client_secret: m.apiKey },
        }),
        read(),
        pay(),
        read(),
      ]);
      for (const a of answers) {
        expect(a.status).toBe(503);
        expect(a.body.code).toBe('DATABASE_UNAVAILABLE');
      }
      expect(token?.status).toBe(503);
      expect(token?.body.error).toBe('temporarily_unavailable');
    });
    expect(during.outcome).toBe('answered');

    // One 1 s deadline (query or connect) each: requests waiting behind a shared credentials read that timed out get
    // its error at once (storage/in-flight-batches.ts), it is not read once more (AuthFailureLimit), and the token
    // request's rate-limit counter read that timed out fails it (storage/rate-limit-store.kysely.ts) instead of
    // letting it on to a second deadline. Measured: 1.03–1.05 s; 2.0 s before the last mend, 4 s before the others,
    // 7–15 s with the default 5 s connect timeout; without the deadline they never answer (TCP's ~15 min).
    expect(during.ms).toBeLessThan(1_800);

    proxy.resume();
    // At once (measured: 12–18 ms): the stalled connections were closed, not kept in the pool.
    await vi.waitFor(async () => expect((await read()).status).toBe(200), { timeout: 5_000, interval: 100 });
    // Every pooled connection works again: the stalled ones were closed, not handed out.
    const after = await Promise.all([pay(), pay(), pay(), pay(), read(), read(), read(), read()]);
    expect(after.map((a) => a.status)).toEqual([201, 201, 201, 201, 200, 200, 200, 200]);
    // Nothing half-written: the payment refused while the database was silent left no row.
    const rows = await k.target.db.kysely
      .selectFrom('payment')
      .select(['pay_id', 'status'])
      .where('merchant_id', '=', m.merchantId)
      .execute();
    expect(rows).toHaveLength(5);
    expect(rows.every((r) => r.status === 'OK')).toBe(true);
  });
});
