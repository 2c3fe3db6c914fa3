import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NotificationRepository } from '../../src/domain/ports/store.js';
import { EXPIRY_SWEEP_MS, registerBackgroundJobs } from '../../src/server/background-jobs.js';

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
