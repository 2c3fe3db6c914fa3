import { DefaultQueryCompiler } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { KyselyStore } from '../../src/storage/kysely-store.js';
import { fixedClock } from '../domain/threeds/three-ds-fixtures.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { storeWithShop } from '../helpers/outbox.js';

/**
 * The outbox look the app makes after every POST (issue 12): its SQL is compiled once (query-shapes.ts), not built
 * and compiled by Kysely per call; on SQLite, with nothing due, it is one read on the read connection and no write.
 */
describe.each(DIALECTS)('claiming due notifications (%s)', (dialect) => {
  let database: FreshDatabase;
  let store: KyselyStore;
  const clock = fixedClock('2026-01-01T00:00:00Z');
  const lease = () => new Date(clock.now().getTime() + 60_000);

  beforeEach(async () => {
    database = await freshDatabase(dialect);
    store = await storeWithShop(database, clock);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await database?.drop();
  });

  it('with nothing due, compiles nothing after the first look (and on SQLite writes nothing)', async () => {
    expect(await store.notifications.claimDue(clock.now(), lease(), 16)).toEqual([]); // compiles the look once
    const compiles = vi.spyOn(DefaultQueryCompiler.prototype, 'compileQuery');
    const units = database.db.groupCommit?.units;
    clock.set('2026-01-01T00:00:01Z');
    expect(await store.notifications.claimDue(clock.now(), lease(), 16)).toEqual([]);
    expect(await store.notifications.claimDue(clock.now(), lease(), 8)).toEqual([]);
    expect(compiles).not.toHaveBeenCalled();
    expect(database.db.groupCommit?.units).toBe(units); // undefined on PostgreSQL
  });

  it('claims what became due since the last look, with the look reused', async () => {
    expect(await store.notifications.claimDue(clock.now(), lease(), 16)).toEqual([]);
    await store.transaction((tx) =>
      tx.outbox.enqueue({
        id: 'msg_0001',
        merchantId: 'shop',
        type: 'payment.authorized',
        payload: { n: 1 },
        targetUrl: 'https://shop.example/hook',
        createdAt: clock.now(),
      }),
    );
    const [claim, ...more] = await store.notifications.claimDue(clock.now(), lease(), 16);
    expect(claim).toMatchObject({ id: 'msg_0001', targetUrl: 'https://shop.example/hook' });
    expect(more).toEqual([]);
    expect(await store.notifications.claimDue(clock.now(), lease(), 16)).toEqual([]); // leased now
  });
});
