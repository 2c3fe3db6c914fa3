import { DefaultQueryCompiler } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AttemptOutcome, ClaimedNotification } from '../../src/domain/notifications/notification.js';
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
  /** Queues a due `payment.authorized` notification of the merchant `shop`. */
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

  // The dispatcher's fairness rule (outbox-dispatcher.ts): a struggling merchant's claimed notifications are put back
  // unattempted, due later; one whose claim was taken over meanwhile is left to its new holder.
  it('deferred notifications are released unattempted and due again later; a claim taken over is left alone', async () => {
    for (const id of ['msg_a', 'msg_b']) await enqueue(id);
    const claims = await store.notifications.claimDue(clock.now(), lease(), 16);
    expect(claims.map((c) => c.id).sort()).toEqual(['msg_a', 'msg_b']);
    const a = claims.find((c) => c.id === 'msg_a') as ClaimedNotification;
    const b = claims.find((c) => c.id === 'msg_b') as ClaimedNotification;
    const later = new Date(clock.now().getTime() + 30_000);
    // msg_b's claim is no longer this one (as if its lease expired and another node claimed it).
    await store.notifications.defer([a, { ...b, leaseUntil: new Date(b.leaseUntil.getTime() + 1) }], later);
    expect(await store.notifications.claimDue(clock.now(), lease(), 16)).toEqual([]); // a: not due yet; b: leased
    const row = await store.notifications.find('shop', 'msg_a');
    expect(row).toMatchObject({ status: 'PENDING', attemptCount: 0, attempts: [] });
    expect(row?.nextAttemptAt?.toISOString()).toBe(later.toISOString());
    const due = await store.notifications.claimDue(later, new Date(later.getTime() + 60_000), 16);
    expect(due.map((c) => c.id)).toEqual(['msg_a']); // msg_b's lease (1 min) has not expired at +30 s
  });

  it('claims and records attempts (each outcome) with SQL compiled once per shape, and the notification rows say so', async () => {
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
