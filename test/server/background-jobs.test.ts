import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NotificationRepository } from '../../src/domain/ports/store.js';
import { DueNotifications } from '../../src/notifications/due-notifications.js';
import { EXPIRY_SWEEP_MS, registerBackgroundJobs } from '../../src/server/background-jobs.js';
import { KyselyNotificationRepository } from '../../src/storage/notification-repository.kysely.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';
import { startReceiver, type TestReceiver } from '../notifications/webhook-receiver.js';

describe('background jobs', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('every expiry sweep ends abandoned authentications, then prunes the states of finished ones', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const calls: string[] = [];
    const app = Fastify();
    registerBackgroundJobs(app, {
      payments: {
        expireAbandonedAuthentications: async () => {
          calls.push('expire');
          return 0;
        },
        pruneFinishedAuthentications: async () => {
          calls.push('prune');
          return 0;
        },
      },
      hosted: { expireAbandonedHostedPayments: async () => 0 },
      notificationRepository: {} as NotificationRepository, // delivery is off: never called
      clock: { now: () => new Date() },
      notifications: { enabled: false },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      expect(calls).toEqual([]);
      await vi.advanceTimersByTimeAsync(EXPIRY_SWEEP_MS);
      expect(calls).toEqual(['expire', 'prune']);
      await vi.advanceTimersByTimeAsync(EXPIRY_SWEEP_MS);
      expect(calls).toEqual(['expire', 'prune', 'expire', 'prune']);
    } finally {
      await app.close();
    }
  });
});

describe('the recovery sweep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // A slow acquirer lookup must not pile sweeps up behind it (each would run in turn and hold a shutdown).
  it('a tick while the previous sweep still runs is skipped, not queued; the next tick after it runs again', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let calls = 0;
    let release = () => {};
    const app = Fastify();
    registerBackgroundJobs(app, {
      payments: { expireAbandonedAuthentications: async () => 0, pruneFinishedAuthentications: async () => 0 },
      hosted: { expireAbandonedHostedPayments: async () => 0 },
      authorizationRecovery: {
        recoverInFlight: () => {
          calls++;
          return new Promise((resolve) => {
            release = () => resolve({ done: 0, failed: 0 });
          });
        },
      },
      followUpSweepMs: 1_000,
      notificationRepository: {} as NotificationRepository,
      clock: { now: () => new Date() },
      notifications: { enabled: false },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      await vi.advanceTimersByTimeAsync(5_000); // five ticks, the first sweep still running
      expect(calls).toBe(1);
      release();
      await vi.advanceTimersByTimeAsync(0);
      expect(calls).toBe(1); // nothing was queued behind it
      await vi.advanceTimersByTimeAsync(1_000);
      expect(calls).toBe(2);
      release();
    } finally {
      await app.close();
    }
  });
});

describe('waking the outbox dispatcher after a POST', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  /** A Fastify app with the background jobs (delivery on, polling hourly) and routes that make notifications due or not. */
  async function appWith(due: DueNotifications | undefined) {
    const claims: number[] = [];
    const repository = {
      claimDue: async () => {
        claims.push(Date.now());
        return [];
      },
    } as unknown as NotificationRepository;
    const app = Fastify();
    apps.push(app);
    registerBackgroundJobs(app, {
      payments: { expireAbandonedAuthentications: async () => 0, pruneFinishedAuthentications: async () => 0 },
      hosted: { expireAbandonedHostedPayments: async () => 0 },
      notificationRepository: repository,
      dueNotifications: due,
      clock: { now: () => new Date() },
      notifications: { pollIntervalMs: 3_600_000 },
    });
    let release: () => void = () => {};
    app.post('/nothing-due', async () => ({}));
    app.post('/due', async () => {
      due?.madeDue();
      return {};
    });
    // Waits until /due has been called while it is in flight (a concurrent request made a notification due).
    app.post('/slow', async () => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return {};
    });
    app.get('/read', async () => ({}));
    await app.listen({ host: '127.0.0.1', port: 0 });
    await vi.waitFor(() => expect(claims).toHaveLength(1)); // the dispatcher's first look, when the server listens
    /** Claims after the start, once the dispatcher is idle again. */
    const claimsAfterStart = async () => {
      await new Promise((r) => setTimeout(r, 50));
      return claims.length - 1;
    };
    return { app, claimsAfterStart, release: () => release() };
  }

  it('a POST that made no notification due claims nothing; one that did claims at once', async () => {
    const { app, claimsAfterStart } = await appWith(new DueNotifications());
    await app.inject({ method: 'POST', url: '/nothing-due' });
    await app.inject({ method: 'GET', url: '/read' });
    expect(await claimsAfterStart()).toBe(0);
    await app.inject({ method: 'POST', url: '/due' });
    expect(await claimsAfterStart()).toBe(1);
    await app.inject({ method: 'POST', url: '/nothing-due' });
    expect(await claimsAfterStart()).toBe(1);
  });

  it('a POST during which another request made a notification due claims when it answers', async () => {
    const { app, claimsAfterStart, release } = await appWith(new DueNotifications());
    const slow = app.inject({ method: 'POST', url: '/slow' });
    await new Promise((r) => setTimeout(r, 20));
    await app.inject({ method: 'POST', url: '/due' });
    expect(await claimsAfterStart()).toBe(1);
    release();
    await slow;
    expect(await claimsAfterStart()).toBe(2);
  });

  it('without a count of due notifications every POST claims', async () => {
    const { app, claimsAfterStart } = await appWith(undefined);
    await app.inject({ method: 'POST', url: '/nothing-due' });
    expect(await claimsAfterStart()).toBe(1);
    await app.inject({ method: 'GET', url: '/read' });
    expect(await claimsAfterStart()).toBe(1);
  });
});

describe.each(DIALECTS)('the dispatcher woken by Kassa’s own POSTs (%s, polling hourly)', (dialect) => {
  let t: TestKassa;
  let receiver: TestReceiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestKassa(dialect, {
      notifications: { pollIntervalMs: 3_600_000, timeoutMs: 2_000 },
      followUpRecovery: { sweepMs: 3_600_000 },
    });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t?.close();
    await receiver?.close();
  });

  const pay = async (auth: { merchantId: string; apiKey: string }) => {
    const res = await t.call('POST', '/api/v1/payments', { auth, json: directPayment(testPan('40000000', '1000')) });
    expect(res.status).toBe(201);
    return res.body.payId as string;
  };

  it('a payment with a notification URL is delivered at once; its redelivery too', async () => {
    const merchant = await t.createMerchant({ webhookUrl: receiver.url });
    await pay(merchant);
    await receiver.waitFor(2, 5_000); // the Authentication Notification and payment.authorized, long before a poll
    const id = receiver.received[0]?.id;
    const again = await t.call('POST', `/api/v1/notifications/${id}/redeliver`, { auth: merchant });
    expect(again.status).toBe(202);
    await receiver.waitFor(3, 5_000);
    expect(receiver.received[2]?.id).toBe(id);
  });

  it('a payment of a merchant without a notification URL makes no claim', async () => {
    const merchant = await t.createMerchant();
    await pay(merchant); // warm: the dispatcher may still be finishing an earlier look
    await new Promise((r) => setTimeout(r, 100));
    const claims = vi.spyOn(KyselyNotificationRepository.prototype, 'claimDue');
    await pay(merchant);
    await new Promise((r) => setTimeout(r, 100));
    expect(claims).not.toHaveBeenCalled();
    claims.mockRestore();
  });
});
