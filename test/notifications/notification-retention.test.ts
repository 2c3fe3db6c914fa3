import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../../src/domain/notifications/notification.js';
import { pruneFinishedNotifications, RETENTION_BATCH } from '../../src/notifications/notification-retention.js';
import type { KyselyStore } from '../../src/storage/kysely-store.js';
import { fixedClock } from '../domain/threeds/three-ds-fixtures.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { storeWithShop } from '../helpers/outbox.js';

const DAY = 24 * 60 * 60 * 1000;

/**
 * The outbox stays bounded (issue 12): finished notifications older than the retention period are pruned with their
 * attempts; PENDING ones and younger ones stay. Time comes from a settable clock.
 */
describe.each(DIALECTS)('notification retention (%s)', (dialect) => {
  let database: FreshDatabase;
  let store: KyselyStore;
  const clock = fixedClock('2026-01-01T00:00:00Z');
  let n = 0;

  beforeEach(async () => {
    database = await freshDatabase(dialect);
    store = await storeWithShop(database, clock);
  });
  afterEach(async () => database?.drop());

  /** An event committed at `at`; with an outcome, one delivery attempt made at `at` ends that way. */
  async function event(at: string, target: boolean, outcome?: AttemptOutcome['status']): Promise<string> {
    clock.set(at);
    const id = `msg_${String(++n).padStart(4, '0')}`;
    await store.transaction((tx) =>
      tx.outbox.enqueue({
        id,
        merchantId: 'shop',
        type: 'payment.authorized',
        payload: { n },
        ...(target && { targetUrl: 'https://shop.example/hook' }),
        createdAt: clock.now(),
      }),
    );
    if (outcome) {
      const [claim] = await store.notifications.claimDue(clock.now(), new Date(clock.now().getTime() + 60_000), 1);
      if (!claim) throw new Error('nothing to claim');
      await store.notifications.recordAttempts([
        {
          claim,
          attempt: { attemptedAt: clock.now(), durationMs: 5, httpStatus: outcome === 'DELIVERED' ? 204 : 500 },
          outcome:
            outcome === 'PENDING'
              ? { status: 'PENDING', nextAttemptAt: new Date(clock.now().getTime() + 365 * DAY) } // not due again here
              : { status: outcome },
        },
      ]);
    }
    return id;
  }

  const ids = async () =>
    (await database.db.kysely.selectFrom('notification').select('id').orderBy('id').execute()).map((r) => r.id);
  const attempts = async () =>
    (await database.db.kysely.selectFrom('notification_attempt').select('notification_id').execute()).map(
      (r) => r.notification_id,
    );

  it('deletes finished notifications past the retention period with their attempts, keeps the rest', async () => {
    const oldDelivered = await event('2026-01-01T00:00:00Z', true, 'DELIVERED');
    const oldFailed = await event('2026-01-01T00:01:00Z', true, 'FAILED');
    const oldNoTarget = await event('2026-01-01T00:02:00Z', false);
    const oldPending = await event('2026-01-01T00:03:00Z', true, 'PENDING');
    const recentDelivered = await event('2026-01-25T00:00:00Z', true, 'DELIVERED');

    clock.set('2026-01-30T23:59:00Z'); // 29.99 days after the oldest: nothing is due for pruning yet
    expect(await pruneFinishedNotifications(store.notifications, clock, 30)).toBe(0);

    clock.set('2026-02-01T00:00:00Z'); // 31 days after the old ones, 7 after the recent one
    expect(await pruneFinishedNotifications(store.notifications, clock, 30)).toBe(3);
    expect(await ids()).toEqual([oldPending, recentDelivered].sort());
    expect(new Set(await attempts())).toEqual(new Set([oldPending, recentDelivered]));
    expect(await ids()).not.toContain(oldDelivered);
    expect(await ids()).not.toContain(oldFailed);
    expect(await ids()).not.toContain(oldNoTarget);

    // Once the recent one is old too, it goes; the PENDING one never does.
    clock.set(new Date(Date.parse('2026-01-25T00:00:00Z') + 31 * DAY).toISOString());
    expect(await pruneFinishedNotifications(store.notifications, clock, 30)).toBe(1);
    expect(await ids()).toEqual([oldPending]);
  });

  it('prunes in batches until none is left', async () => {
    const count = RETENTION_BATCH + 20;
    await database.db.kysely
      .insertInto('notification')
      .values(
        Array.from({ length: count }, (_, i) => ({
          id: `msg_bulk_${i}`,
          merchant_id: 'shop',
          pay_id: null,
          type: 'payment.authorized',
          payload: '{}',
          target_url: null,
          status: 'NO_TARGET',
          attempt_count: 0,
          next_attempt_at: '2025-01-01T00:00:00.000Z',
          created_at: '2025-01-01T00:00:00.000Z',
          delivered_at: null,
        })),
      )
      .execute();
    clock.set('2026-01-01T00:00:00Z');
    expect(await pruneFinishedNotifications(store.notifications, clock, 30)).toBe(count);
    expect(await ids()).toEqual([]);
  });
});
