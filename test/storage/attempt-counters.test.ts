import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptCounters } from '../../src/domain/ports/attempt-counters.js';
import { attemptRowKey, attemptRowResetAt, KyselyAttemptCounters } from '../../src/storage/attempt-counters.kysely.js';
import { InMemoryAttemptCounters } from '../../src/storage/attempt-counters.memory.js';
import { RedisAttemptCounters } from '../../src/storage/attempt-counters.redis.js';
import { KyselyAuthEpoch } from '../../src/storage/auth-epoch.kysely.js';
import { createDb, type Db, migrateToLatest } from '../../src/storage/create-db.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { insertMerchantRow, renameMerchantRow } from '../helpers/merchant-rows.js';

const WINDOW_MS = 60_000;
const at = (ms: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, 0) + ms);

/** The behaviour every adapter shares: fixed windows, counts per key. */
function sharedBehaviour(pair: () => { a: AttemptCounters; b: AttemptCounters }) {
  it('counts hits in the window and starts again in the next one', async () => {
    const { a } = pair();
    const key = `k-${randomUUID()}`;
    expect(await a.count(key, WINDOW_MS, at(0))).toBe(0);
    expect(await a.hit(key, WINDOW_MS, at(1_000))).toBe(1);
    expect(await a.hit(key, WINDOW_MS, at(59_999))).toBe(2);
    expect(await a.count(key, WINDOW_MS, at(30_000))).toBe(2);
    expect(await a.count(key, WINDOW_MS, at(60_000))).toBe(0);
    expect(await a.hit(key, WINDOW_MS, at(60_000))).toBe(1);
  });

  it('keeps keys and window lengths apart', async () => {
    const { a } = pair();
    const key = `k-${randomUUID()}`;
    await a.hit(key, WINDOW_MS, at(0));
    expect(await a.count(`${key}-other`, WINDOW_MS, at(0))).toBe(0);
    expect(await a.count(key, 3_600_000, at(0))).toBe(0);
  });
}

describe('attempt counter row keys', () => {
  it('tell the end of their window back (the listener prunes by it); other keys tell nothing', () => {
    const row = attemptRowKey('authfail:abc', WINDOW_MS, at(1_000));
    expect(attemptRowResetAt(row.key)).toBe(row.resetAt);
    expect(row.resetAt).toBe(at(60_000).getTime());
    expect(attemptRowResetAt('api:abc')).toBeUndefined();
  });
});

describe('InMemoryAttemptCounters', () => {
  const counters = new InMemoryAttemptCounters();
  sharedBehaviour(() => ({ a: counters, b: counters }));
});

describe.each(DIALECTS)('KyselyAttemptCounters (%s)', (dialect) => {
  let database: FreshDatabase;
  let second: Db | undefined;
  let a: KyselyAttemptCounters;
  let b: KyselyAttemptCounters;
  beforeAll(async () => {
    database = await freshDatabase(dialect);
    await migrateToLatest(database.db);
    // PostgreSQL: a second pool on the same database, as another node would have. SQLite has one writer: one handle.
    second = dialect === 'postgres' ? createDb({ dialect: 'postgres', url: database.url, poolSize: 2 }) : undefined;
    a = new KyselyAttemptCounters(database.db.kysely);
    b = new KyselyAttemptCounters((second ?? database.db).kysely);
  });
  afterAll(async () => {
    await second?.close();
    await database?.drop();
  });
  sharedBehaviour(() => ({ a, b }));

  // Issue 14: N nodes on one database do not get N times the limit.
  it('hits from two nodes count together, also when they race', async () => {
    const key = `k-${randomUUID()}`;
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).hit(key, WINDOW_MS, at(5_000))));
    expect(await a.count(key, WINDOW_MS, at(5_000))).toBe(10);
    expect(await b.count(key, WINDOW_MS, at(5_000))).toBe(10);
  });

  // Issue 12: HTTP Basic reads its failure count and the credentials epoch in one statement.
  it('KyselyAuthEpoch.readWithAttempts: the same count as count(), and the epoch as read(), in one statement', async () => {
    const epoch = new KyselyAuthEpoch(database.db.kysely);
    const key = `k-${randomUUID()}`;
    expect(await epoch.readWithAttempts(key, WINDOW_MS, at(0))).toEqual({ attempts: 0, epoch: await epoch.read() });
    for (let i = 0; i < 3; i++) await a.hit(key, WINDOW_MS, at(1_000));
    expect(await epoch.readWithAttempts(key, WINDOW_MS, at(2_000))).toEqual({ attempts: 3, epoch: await epoch.read() });
    expect((await epoch.readWithAttempts(key, WINDOW_MS, at(60_000))).attempts).toBe(0); // the next window
    expect((await epoch.readWithAttempts(`${key}-other`, WINDOW_MS, at(2_000))).attempts).toBe(0);
    const before = await epoch.read();
    const merchantId = await insertMerchantRow(database.db.kysely, at(0));
    // A merchant row changed bumps it (triggers, migration 2026-11-23-0101).
    await renameMerchantRow(database.db.kysely, merchantId, 'Renamed');
    expect((await epoch.readWithAttempts(key, WINDOW_MS, at(2_000))).epoch).toBeGreaterThan(before);
  });
});

const REDIS_URL = process.env.KASSA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000 });
const redisUp = await probe
  .connect()
  .then(() => true)
  .catch(() => false);
probe.disconnect();

describe.runIf(redisUp)('RedisAttemptCounters', () => {
  const clients = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
  const a = new RedisAttemptCounters(clients[0] as Redis);
  const b = new RedisAttemptCounters(clients[1] as Redis);
  afterAll(() => {
    for (const c of clients) c.disconnect();
  });
  sharedBehaviour(() => ({ a, b }));

  it('hits from two nodes count together, and the key expires one window after its end', async () => {
    const key = `k-${randomUUID()}`;
    const now = new Date();
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).hit(key, WINDOW_MS, now)));
    expect(await b.count(key, WINDOW_MS, now)).toBe(10);
    const redisKeys = await (clients[0] as Redis).keys(`kassa-ac:${key}@*`);
    expect(redisKeys).toHaveLength(1);
    const ttl = await (clients[0] as Redis).pttl(redisKeys[0] as string);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeGreaterThan(WINDOW_MS - 1_000);
    expect(ttl).toBeLessThanOrEqual(2 * WINDOW_MS);
  });
});
