import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KyselyAttemptCounters } from '../../src/storage/attempt-counters.kysely.js';
import { KyselyAuthEpoch } from '../../src/storage/auth-epoch.kysely.js';
import { migrateToLatest } from '../../src/storage/create-db.js';
import {
  LISTENER_APPLICATION_NAME,
  type ListenerOptions,
  PostgresAuthListener,
} from '../../src/storage/postgres-auth-listener.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { insertMerchantRow, renameMerchantRow } from '../helpers/merchant-rows.js';

const WINDOW_MS = 60_000;
/** No heartbeat within a test: what the listener learns, it learns from NOTIFY. */
const NOTIFY_ONLY: ListenerOptions = {
  heartbeatMs: 600_000,
  heartbeatTimeoutMs: 600_000,
  reconnectMs: 100,
  maxFailures: 1_000,
};
const soon = { timeout: 5_000, interval: 10 };

/**
 * The credentials epoch and authentication failures by LISTEN/NOTIFY (issue 12, migration 2026-11-23-0401): a node
 * learns of a change committed by any connection without reading per request, and reads per request again whenever
 * its listening connection is down.
 */
describe.runIf(DIALECTS.includes('postgres'))('PostgresAuthListener (postgres)', () => {
  let database: FreshDatabase;
  let epoch: KyselyAuthEpoch;
  let counters: KyselyAttemptCounters;
  const listeners: PostgresAuthListener[] = [];
  const lost: Error[] = [];

  beforeAll(async () => {
    database = await freshDatabase('postgres', undefined, { listen: true });
    await migrateToLatest(database.db);
    epoch = new KyselyAuthEpoch(database.db.kysely);
    counters = new KyselyAttemptCounters(database.db.kysely);
  });
  afterEach(async () => {
    await Promise.all(listeners.splice(0).map((l) => l.close()));
  });
  afterAll(async () => {
    await database?.drop();
  });

  async function listening(options: Partial<ListenerOptions> = {}): Promise<PostgresAuthListener> {
    const connect = database.db.listenerClient;
    if (!connect) throw new Error('createDb gave no listener client');
    const l = new PostgresAuthListener(
      connect,
      () => new Date(),
      (e) => lost.push(e),
      { ...NOTIFY_ONLY, ...options },
    );
    listeners.push(l);
    await l.start();
    return l;
  }

  const addMerchant = () => insertMerchantRow(database.db.kysely);
  const rename = (merchantId: string, name: string) => renameMerchantRow(database.db.kysely, merchantId, name);

  it('starts live with the stored epoch, and follows a change committed on another connection by NOTIFY', async () => {
    const l = await listening();
    expect(l.liveEpoch()).toBe(await epoch.read());
    const merchantId = await addMerchant();
    const before = await epoch.read();
    await rename(merchantId, 'renamed');
    const after = await epoch.read();
    expect(after).toBeGreaterThan(before);
    await expect.poll(() => l.liveEpoch(), soon).toBe(after);
  });

  it('knows which attempt counters have failures in their window; the others need no read', async () => {
    const l = await listening();
    const failing = `authfail:${randomUUID()}`;
    const clean = `authfail:${randomUUID()}`;
    const now = new Date();
    expect(l.epochIfNoFailures(failing, WINDOW_MS, now)).toBe(l.liveEpoch());
    await counters.hit(failing, WINDOW_MS, now);
    await expect.poll(() => l.epochIfNoFailures(failing, WINDOW_MS, new Date()), soon).toBeUndefined();
    expect(l.epochIfNoFailures(clean, WINDOW_MS, now)).toBe(l.liveEpoch());
    // The failure's window ends: the counter holds nothing for the next one.
    expect(l.epochIfNoFailures(failing, WINDOW_MS, new Date(now.getTime() + WINDOW_MS))).toBe(l.liveEpoch());
    // A listener started later reads the failures of the current windows from the table.
    expect((await listening()).epochIfNoFailures(failing, WINDOW_MS, new Date())).toBeUndefined();
  });

  it('past maxFailures remembered counters it sends every counter to be read, until their windows end', async () => {
    const l = await listening({ maxFailures: 2 });
    const now = new Date();
    const keys = [1, 2, 3].map(() => `authfail:${randomUUID()}`);
    for (const key of keys) await counters.hit(key, WINDOW_MS, now);
    const untouched = `authfail:${randomUUID()}`;
    await expect.poll(() => l.epochIfNoFailures(untouched, WINDOW_MS, new Date()), soon).toBeUndefined();
    expect(l.epochIfNoFailures(untouched, WINDOW_MS, new Date(now.getTime() + WINDOW_MS))).toBe(l.liveEpoch());
  });

  it('counters other than authentication failures (API rate limits) are not announced', async () => {
    const l = await listening();
    const other = `api:${randomUUID()}`;
    await counters.hit(other, WINDOW_MS, new Date());
    const marker = `authfail:${randomUUID()}`;
    await counters.hit(marker, WINDOW_MS, new Date()); // notified after the first, on the same channel
    await expect.poll(() => l.epochIfNoFailures(marker, WINDOW_MS, new Date()), soon).toBeUndefined();
    expect(l.epochIfNoFailures(other, WINDOW_MS, new Date())).toBe(l.liveEpoch());
  });

  it('while its connection is down it answers nothing (callers read); it reconnects and reads what it missed', async () => {
    const l = await listening();
    const merchantId = await addMerchant();
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const terminated = await admin.query(
        'select pg_terminate_backend(pid) as done from pg_stat_activity where application_name = $1 and datname = current_database()',
        [LISTENER_APPLICATION_NAME],
      );
      expect(terminated.rows).toEqual([{ done: true }]);
      await expect.poll(() => l.liveEpoch(), soon).toBeUndefined();
      expect(l.epochIfNoFailures(`authfail:${randomUUID()}`, WINDOW_MS, new Date())).toBeUndefined();
      expect(lost.length).toBeGreaterThan(0);
      // Changed while it may still be down: read again on reconnecting.
      await rename(merchantId, 'again');
      const after = await epoch.read();
      await expect.poll(() => l.liveEpoch(), soon).toBe(after);
    } finally {
      await admin.end();
    }
  });

  it('a database it cannot reach: start() returns, nothing is live, and it keeps trying', async () => {
    const unreachable: Error[] = [];
    const l = new PostgresAuthListener(
      () => new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 500 }),
      () => new Date(),
      (e) => unreachable.push(e),
      { ...NOTIFY_ONLY, reconnectMs: 50 },
    );
    listeners.push(l);
    await l.start();
    expect(l.liveEpoch()).toBeUndefined();
    await expect.poll(() => unreachable.length, soon).toBeGreaterThanOrEqual(3);
    await l.refresh(); // not live: nothing to do, no throw
    expect(l.liveEpoch()).toBeUndefined();
  });

  it('refresh() reads the epoch at once, without waiting for the notification', async () => {
    const l = await listening();
    const merchantId = await addMerchant();
    await rename(merchantId, 'x');
    await l.refresh();
    expect(l.liveEpoch()).toBe(await epoch.read());
  });
});
