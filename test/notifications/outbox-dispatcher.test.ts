import { randomUUID } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Merchant } from '../../src/domain/merchants/merchant.js';
import { RETRY_DELAYS_MS } from '../../src/domain/notifications/retry-schedule.js';
import type { Clock } from '../../src/domain/ports/clock.js';
import {
  createNotificationDelivery,
  type NotificationDelivery,
  type NotificationDeliverySettings,
} from '../../src/notifications/notification-delivery.js';
import type { OutboxDispatcher } from '../../src/notifications/outbox-dispatcher.js';
import { migrateToLatest } from '../../src/storage/create-db.js';
import { KyselyStore } from '../../src/storage/kysely-store.js';
import { WebhookSecretBox } from '../../src/storage/webhook-secret-box.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { startReceiver, type TestReceiver } from './webhook-receiver.js';

/** A clock the test moves by hand (STYLE.md: schedules are tested without sleeping). */
class ManualClock implements Clock {
  constructor(public t = Date.now()) {}
  now(): Date {
    return new Date(this.t);
  }
  set(d: Date): void {
    this.t = d.getTime();
  }
}

/** Stub resolver: host names used by the tests; nothing ever reaches a real DNS server or a non-loopback address. */
const stubResolve = async (host: string): Promise<LookupAddress[]> =>
  (
    ({
      'receiver.kassa.test': ['127.0.0.1'],
      'loopback.kassa.test': ['127.0.0.1'],
      'v6.kassa.test': ['::1'],
      'private.kassa.test': ['10.0.0.7'],
    }) as Record<string, string[]>
  )[host]?.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })) ?? [];

describe.each(DIALECTS)('outbox dispatcher (%s)', (dialect) => {
  let database: FreshDatabase;
  let store: KyselyStore;
  let receiver: TestReceiver;
  const deliveries: NotificationDelivery[] = [];

  const merchant = (sandbox: boolean): Merchant => ({
    merchantId: `m_${randomUUID().slice(0, 8)}`,
    name: 'Shop',
    country: 'DK',
    currency: 'DKK',
    sandbox,
    webhookSecret: `whsec_${Buffer.from(randomUUID()).toString('base64')}`,
    creationDate: new Date(),
  });

  async function newMerchant(sandbox = true): Promise<Merchant> {
    const m = merchant(sandbox);
    await store.merchants.insert(m);
    return m;
  }

  async function enqueue(m: Merchant, targetUrl: string | undefined, at: Date, payload: object = {}): Promise<string> {
    const id = `msg_${randomUUID().replaceAll('-', '')}`;
    await store.transaction((tx) =>
      tx.outbox.enqueue({
        id,
        merchantId: m.merchantId,
        payId: '0'.repeat(32),
        type: 'payment.authorized',
        payload: { type: 'payment.authorized', ...payload },
        targetUrl,
        createdAt: at,
      }),
    );
    return id;
  }

  function dispatcher(clock: Clock, settings: Partial<NotificationDeliverySettings> = {}): OutboxDispatcher {
    const d = createNotificationDelivery(store.notifications, clock, {
      timeoutMs: 500,
      resolveAll: stubResolve,
      random: () => 0.5,
      ...settings,
    });
    deliveries.push(d);
    return d.dispatcher;
  }

  const record = async (m: Merchant, id: string) => {
    const r = await store.notifications.find(m.merchantId, id);
    if (!r) throw new Error(`no notification ${id}`);
    return r;
  };

  beforeAll(async () => {
    database = await freshDatabase(dialect);
    await migrateToLatest(database.db);
    store = new KyselyStore(database.db.kysely, new WebhookSecretBox('dispatcher-test-data-key-0123456789abcdef'));
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await Promise.all(deliveries.splice(0).map((d) => d.stop()));
    receiver.received.length = 0;
    receiver.script.length = 0;
    receiver.fallback = 200;
    receiver.delayMs = 0;
  });
  afterAll(async () => {
    await receiver?.close();
    await database?.drop();
  });

  it('delivers a committed event signed per Standard Webhooks with the merchant secret, and logs the attempt', async () => {
    const clock = new ManualClock();
    const m = await newMerchant();
    const id = await enqueue(m, receiver.url, clock.now(), { payId: 'abc' });

    expect(await dispatcher(clock).runOnce()).toBe(1);

    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0];
    if (!got) throw new Error('nothing received');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toBe(id);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(m.webhookSecret).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toEqual({ type: 'payment.authorized', payId: 'abc' });
    // Security: a different secret does not verify.
    expect(() => new Webhook(merchant(true).webhookSecret).verify(got.body, got.headers as never)).toThrow();

    const r = await record(m, id);
    expect(r.status).toBe('DELIVERED');
    expect(r.deliveredAt).toEqual(clock.now());
    expect(r.attempts).toEqual([
      { attemptNo: 1, attemptedAt: clock.now(), durationMs: expect.any(Number), httpStatus: 200, error: undefined },
    ]);
  });

  it('after a webhook secret rotation, deliveries verify under the new and the old secret until the overlap ends, then under the new one only', async () => {
    const clock = new ManualClock();
    const m = await newMerchant();
    const rotatedTo = merchant(true).webhookSecret;
    expect(await store.merchants.rotateWebhookSecret(m.merchantId, rotatedTo, new Date(clock.t + 60_000))).toBe(true);
    // At rest both are sealed (storage/webhook-secret-box.ts): neither secret is in the row.
    const row = await database.db.kysely
      .selectFrom('merchant')
      .selectAll()
      .where('merchant_id', '=', m.merchantId)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(m.webhookSecret.slice('whsec_'.length));
    expect(JSON.stringify(row)).not.toContain(rotatedTo.slice('whsec_'.length));
    expect(await store.merchants.find(m.merchantId)).toMatchObject({
      webhookSecret: rotatedTo,
      previousWebhookSecret: { secret: m.webhookSecret, expiresAt: new Date(clock.t + 60_000) },
    });

    const during = await enqueue(m, receiver.url, clock.now(), { n: 1 });
    expect(await dispatcher(clock).runOnce()).toBe(1);
    const first = receiver.received[0];
    if (!first) throw new Error('nothing received');
    expect(first.headers['webhook-id']).toBe(during);
    expect(first.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    for (const secret of [rotatedTo, m.webhookSecret]) {
      expect(new Webhook(secret).verify(first.body, first.headers as Record<string, string>)).toEqual({
        type: 'payment.authorized',
        n: 1,
      });
    }

    clock.t += 60_000; // the overlap ends at this instant
    const after = await enqueue(m, receiver.url, clock.now(), { n: 2 });
    expect(await dispatcher(clock).runOnce()).toBe(1);
    const second = receiver.received[1];
    if (!second) throw new Error('second notification not received');
    expect(second.headers['webhook-id']).toBe(after);
    expect(second.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(rotatedTo).verify(second.body, second.headers as Record<string, string>)).toEqual({
      type: 'payment.authorized',
      n: 2,
    });
    expect(() => new Webhook(m.webhookSecret).verify(second.body, second.headers as never)).toThrow();

    // A rotation that keeps nothing (a leaked secret) ends the old one at once.
    const third = merchant(true).webhookSecret;
    expect(await store.merchants.rotateWebhookSecret(m.merchantId, third, undefined)).toBe(true);
    expect((await store.merchants.find(m.merchantId))?.previousWebhookSecret).toBeUndefined();
    expect(await store.merchants.rotateWebhookSecret('m_nobody', third, undefined)).toBe(false);
  });

  it('a failing receiver gets attempts exactly on the DESIGN.md §5 schedule, never before due, then FAILED', async () => {
    receiver.fallback = 500;
    const clock = new ManualClock();
    const m = await newMerchant();
    const id = await enqueue(m, receiver.url, clock.now());
    const d = dispatcher(clock);

    for (let attempt = 1; attempt <= RETRY_DELAYS_MS.length; attempt++) {
      expect(await d.runOnce()).toBe(1);
      const r = await record(m, id);
      expect(r.attempts).toHaveLength(attempt);
      expect(r.attempts.at(-1)).toMatchObject({ attemptNo: attempt, httpStatus: 500 });
      if (attempt === RETRY_DELAYS_MS.length) {
        expect(r.status).toBe('FAILED');
        break;
      }
      expect(r.status).toBe('PENDING');
      const due = r.nextAttemptAt as Date;
      expect(due.getTime() - clock.t).toBe(RETRY_DELAYS_MS[attempt]); // random 0.5: no jitter
      clock.set(new Date(due.getTime() - 1));
      expect(await d.runOnce()).toBe(0);
      clock.set(due);
    }
    clock.t += 24 * 3_600_000;
    expect(await d.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(8);
  });

  it('a receiver that hangs past the timeout, then answers 500, gets the event once it recovers', async () => {
    receiver.script.push('hang', 500);
    const clock = new ManualClock();
    const m = await newMerchant();
    const id = await enqueue(m, receiver.url, clock.now());
    const d = dispatcher(clock, { timeoutMs: 200 });

    await d.runOnce();
    clock.t += 6_000;
    await d.runOnce();
    clock.t += 6 * 60_000;
    await d.runOnce();

    const r = await record(m, id);
    expect(r.status).toBe('DELIVERED');
    expect(r.attempts.map((a) => a.httpStatus ?? a.error)).toEqual([
      'timeout: no complete answer within 200 ms',
      500,
      200,
    ]);
    expect(r.attempts[0]?.durationMs).toBeGreaterThanOrEqual(150);
    expect(receiver.deliveredCounts().get(id)).toBe(1);
  });

  it('a dead dispatcher’s claim is taken over once its lease expires, and not before', async () => {
    const clock = new ManualClock();
    const m = await newMerchant();
    const id = await enqueue(m, receiver.url, clock.now());
    const claimed = await store.notifications.claimDue(clock.now(), new Date(clock.t + 12_000), 10);
    expect(claimed.map((c) => c.id)).toContain(id);

    const d = dispatcher(clock);
    expect(await d.runOnce()).toBe(0);
    clock.t += 12_000;
    expect(await d.runOnce()).toBe(1);
    expect((await record(m, id)).status).toBe('DELIVERED');
  });

  it('two dispatchers working one outbox never attempt the same event twice', async () => {
    const clock = new ManualClock();
    const m = await newMerchant();
    const ids = await Promise.all(Array.from({ length: 30 }, () => enqueue(m, receiver.url, clock.now())));
    const a = dispatcher(clock, { concurrency: 4 });
    const b = dispatcher(clock, { concurrency: 4 });
    let done = 0;
    while (done < ids.length) {
      const [x, y] = await Promise.all([a.runOnce(), b.runOnce()]);
      if (x + y === 0) break;
      done += x + y;
    }
    expect(done).toBe(30);
    const counts = receiver.deliveredCounts();
    expect(ids.map((id) => counts.get(id))).toEqual(ids.map(() => 1));
  });

  it('connects to the address the guard resolved (a name only the injected resolver knows)', async () => {
    const clock = new ManualClock();
    const m = await newMerchant(true);
    const id = await enqueue(m, `http://receiver.kassa.test:${receiver.port}/hook`, clock.now());
    await dispatcher(clock).runOnce();
    expect(receiver.deliveredCounts().get(id)).toBe(1);
  });

  // Security (SSRF): a production merchant's target on loopback or a private network is refused at delivery, even
  // when it was stored without the creation-time check (a merchant default set by an operator, a DNS change).
  it.each([
    ['https://127.0.0.1:PORT/hook'],
    ['https://[::1]:PORT/hook'],
    ['https://10.0.0.1/hook'],
    ['https://loopback.kassa.test:PORT/hook'],
    ['https://v6.kassa.test:PORT/hook'],
    ['https://private.kassa.test/hook'],
    ['http://receiver.kassa.test:PORT/hook'],
  ])('a production merchant’s event for %s is refused at delivery and nothing is sent', async (template) => {
    const clock = new ManualClock();
    const m = await newMerchant(false);
    const id = await enqueue(m, template.replace('PORT', String(receiver.port)), clock.now());
    await dispatcher(clock).runOnce();
    const r = await record(m, id);
    expect(r.status).toBe('PENDING');
    expect(r.attempts[0]?.error).toBe('address not allowed'); // no address, no reason a port scan could read
    expect(r.attempts[0]?.httpStatus).toBeUndefined();
    expect(receiver.received).toHaveLength(0);
  });

  it('an event without a target waits as NO_TARGET and is never claimed', async () => {
    const clock = new ManualClock();
    const m = await newMerchant();
    const id = await enqueue(m, undefined, clock.now());
    expect(await dispatcher(clock).runOnce()).toBe(0);
    expect((await record(m, id)).status).toBe('NO_TARGET');
  });

  // Fairness between merchants: a merchant whose receiver stops answering gets one delivery at a time once its
  // attempts time out, instead of every slot round after round (the notifications review: another merchant's events
  // waited 70 s behind 30 hanging payments). Without the rule the other merchant's event would come after all twelve.
  it("one merchant's receiver that stops answering does not hold the slots another merchant's event needs", async () => {
    const hanging = await startReceiver();
    hanging.fallback = 'hang';
    try {
      const clock = new ManualClock();
      const slow = await newMerchant();
      const other = await newMerchant();
      const first: string[] = [];
      for (let i = 0; i < 12; i++) first.push(await enqueue(slow, hanging.url, new Date(clock.t - 60_000 + i)));
      const d = dispatcher(clock, { pollIntervalMs: 20, timeoutMs: 1_000, concurrency: 4 });
      d.start();
      await hanging.waitFor(4);
      // The four time out after 1 s and are recorded; the slow merchant is struggling from then on.
      await vi.waitFor(
        async () => {
          const attempted = await Promise.all(first.slice(0, 4).map((id) => record(slow, id)));
          if (attempted.some((r) => r.attempts.length === 0)) throw new Error('first round not recorded yet');
        },
        { timeout: 10_000, interval: 20 },
      );
      const id = await enqueue(other, receiver.url, clock.now());
      await vi.waitFor(
        () => {
          if (!receiver.received.some((r) => r.id === id)) throw new Error('not delivered yet');
        },
        { timeout: 10_000, interval: 10 },
      );
      expect(hanging.received.length).toBeLessThanOrEqual(5);
      // The attempt is recorded just after the receiver answered.
      await vi.waitFor(async () => expect((await record(other, id)).status).toBe('DELIVERED'), { timeout: 5_000 });
      // One of the slow merchant's eight others is tried (one at a time); the other seven wait 30 s, unattempted.
      await hanging.waitFor(5);
      const rest = await Promise.all(first.slice(4).map((n) => record(slow, n)));
      const waiting = rest.filter(
        (r) => r.attempts.length === 0 && (r.nextAttemptAt?.getTime() ?? 0) >= clock.t + 29_000,
      );
      expect(waiting).toHaveLength(7);
      expect(hanging.received.length).toBe(5);
    } finally {
      await Promise.all(deliveries.splice(0).map((d) => d.stop()));
      await hanging.close();
    }
  });

  it('a running dispatcher delivers by itself and stop() waits for the delivery in flight to be recorded', async () => {
    receiver.delayMs = 300;
    const clock = new ManualClock();
    const m = await newMerchant();
    const id = await enqueue(m, receiver.url, clock.now());
    const delivery = createNotificationDelivery(store.notifications, clock, { pollIntervalMs: 20, timeoutMs: 2000 });
    delivery.start();
    await receiver.waitFor(1);
    await delivery.stop();
    expect((await record(m, id)).status).toBe('DELIVERED');
  });
});
