import { DefaultQueryCompiler } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AttemptOutcome, ClaimedNotification } from '../../src/domain/notifications/notification.js';
import type { KyselyStore } from '../../src/storage/kysely-store.js';
import { fixedClock } from '../domain/threeds/three-ds-fixtures.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { insertShop, storeWithShop } from '../helpers/outbox.js';

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

  // The dispatcher's fairness rule (outbox-dispatcher.ts): a claim can leave struggling merchants out, or take one
  // merchant's notifications only.
  it('a claim leaves the excluded merchants alone, or takes one merchant only', async () => {
    for (const merchantId of ['shop2', 'shop3']) await insertShop(store, merchantId, clock);
    for (const [i, merchantId] of ['shop', 'shop2', 'shop3', 'shop', 'shop2', 'shop3'].entries()) {
      await store.transaction((tx) =>
        tx.outbox.enqueue({
          id: `msg_${i}`,
          merchantId,
          type: 'payment.authorized',
          payload: { i },
          targetUrl: 'https://shop.example/hook',
          createdAt: clock.now(),
        }),
      );
    }
    const ids = (claims: ClaimedNotification[]) => claims.map((c) => `${c.merchantId}:${c.id}`).sort();
    expect(ids(await store.notifications.claimDue(clock.now(), lease(), 16, { exclude: ['shop', 'shop3'] }))).toEqual([
      'shop2:msg_1',
      'shop2:msg_4',
    ]);
    expect(ids(await store.notifications.claimDue(clock.now(), lease(), 1, { merchantId: 'shop3' }))).toHaveLength(1);
    expect(ids(await store.notifications.claimDue(clock.now(), lease(), 16, { exclude: ['shop3'] }))).toEqual([
      'shop:msg_0',
      'shop:msg_3',
    ]);
    expect(ids(await store.notifications.claimDue(clock.now(), lease(), 16))).toHaveLength(1); // shop3's other one
  });

  it('claims and records attempts (each outcome) with SQL compiled once per shape, and the notification rows say so', async () => {
    const enqueue = (id: string) =>
      store.transaction((tx) =>
        tx.outbox.enqueue({
          id,
          merchantId: 'shop',
          type: 'payment.authorized',
          payload: { id },
          targetUrl: 'https://shop.example/hook',
          createdAt: clock.now(),
        }),
      );
    /** Claims `ids` and records one attempt of each with the outcome of the same index. */
    const attemptAll = async (ids: string[], outcomes: AttemptOutcome[]) => {
      for (const id of ids) await enqueue(id);
      const claims = await store.notifications.claimDue(clock.now(), lease(), 16);
      expect(claims.map((c) => c.id).sort()).toEqual([...ids].sort());
      await store.notifications.recordAttempts(
        ids.map((id, i) => ({
          claim: claims.find((c) => c.id === id) as ClaimedNotification,
          attempt: { attemptedAt: clock.now(), durationMs: 12.4, httpStatus: i === 0 ? 204 : 500 },
          outcome: outcomes[i] as AttemptOutcome,
        })),
      );
    };
    const retryAt = new Date(clock.now().getTime() + 3_600_000);
    const outcomes: AttemptOutcome[] = [
      { status: 'DELIVERED' },
      { status: 'PENDING', nextAttemptAt: retryAt },
      { status: 'FAILED' },
    ];
    await attemptAll(['msg_w1', 'msg_w2', 'msg_w3'], outcomes); // warm: the shapes are compiled
    const compiles = vi.spyOn(DefaultQueryCompiler.prototype, 'compileQuery');
    await attemptAll(['msg_a1', 'msg_a2', 'msg_a3'], outcomes);
    expect(compiles.mock.results.map((r) => (r.value as { sql: string }).sql)).toEqual([]);
    compiles.mockRestore();
    const [delivered, pending, failed] = await Promise.all(
      ['msg_a1', 'msg_a2', 'msg_a3'].map((id) => store.notifications.find('shop', id)),
    );
    expect(delivered).toMatchObject({ status: 'DELIVERED', attemptCount: 1, deliveredAt: clock.now() });
    expect(delivered?.attempts).toMatchObject([{ attemptNo: 1, httpStatus: 204, durationMs: 12 }]);
    expect(pending).toMatchObject({ status: 'PENDING', attemptCount: 1, nextAttemptAt: retryAt });
    expect(pending?.deliveredAt).toBeUndefined();
    expect(failed).toMatchObject({ status: 'FAILED', attemptCount: 1 });
  });
});
