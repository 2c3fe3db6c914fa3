import { DELIVERY_TIMEOUT_MS } from '../domain/notifications/retry-schedule.js';
import type { Clock } from '../domain/ports/clock.js';
import type { NotificationRepository } from '../domain/ports/store.js';
import { type DispatcherLog, OutboxDispatcher } from './outbox-dispatcher.js';
import { type ResolveAll, systemResolveAll } from './ssrf-guard.js';
import { UndiciWebhookSender, type WebhookSender } from './webhook-sender.js';

/** Settings of notification delivery; every one has a production default. */
export interface NotificationDeliverySettings {
  /** false: no dispatcher in this process (events still queue up in the database). Default true. */
  enabled: boolean;
  /** Default 200 ms. */
  pollIntervalMs: number;
  /** Deliveries in flight per process. Default 16. */
  concurrency: number;
  /** Any 2xx within this time is success (DESIGN.md §5). Default 10 000 ms. */
  timeoutMs: number;
  /** Claim lease; default timeoutMs + 2 000 ms, which is also how soon a crashed node's claims are taken over. */
  leaseMs: number;
  /** Host name resolution of the SSRF guard (tests stub it). Default the system resolver. */
  resolveAll: ResolveAll;
  /** Ports no notification may reach: the database's and Redis's (config `internalPorts`). */
  forbiddenPorts: readonly number[];
  /** Jitter source. Default Math.random. */
  random: () => number;
  /** Replaces the undici sender (tests). */
  sender?: WebhookSender;
  /** Called after every delivery attempt with its outcome (metrics). */
  onAttempt?: (outcome: 'DELIVERED' | 'PENDING' | 'FAILED') => void;
}

/** A dispatcher with its sender, to start when the server listens and to stop (drained) when it closes. */
export interface NotificationDelivery {
  dispatcher: OutboxDispatcher;
  start(): void;
  wake(): void;
  stop(): Promise<void>;
}

/** Builds notification delivery from settings (defaults filled in). */
export function createNotificationDelivery(
  repository: NotificationRepository,
  clock: Clock,
  settings: Partial<NotificationDeliverySettings> = {},
  log?: DispatcherLog,
): NotificationDelivery {
  const timeoutMs = settings.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const sender =
    settings.sender ??
    new UndiciWebhookSender({
      timeoutMs,
      resolveAll: settings.resolveAll ?? systemResolveAll,
      forbiddenPorts: settings.forbiddenPorts,
    });
  const dispatcher = new OutboxDispatcher({
    repository,
    sender,
    clock,
    pollIntervalMs: settings.pollIntervalMs ?? 200,
    concurrency: settings.concurrency ?? 16,
    leaseMs: settings.leaseMs ?? timeoutMs + 2_000,
    random: settings.random ?? Math.random,
    onAttempt: settings.onAttempt,
    log,
  });
  const enabled = settings.enabled ?? true;
  return {
    dispatcher,
    start: () => {
      if (enabled) dispatcher.start();
    },
    wake: () => dispatcher.wake(),
    stop: async () => {
      await dispatcher.stop();
      await sender.close();
    },
  };
}
