import type { FastifyInstance } from 'fastify';
import type { StoredCardService } from '../domain/cards/stored-card-service.js';
import { DELIVERY_TIMEOUT_MS } from '../domain/notifications/retry-schedule.js';
import type { AuthorizationRecovery } from '../domain/payments/authorization-recovery.js';
import type { FollowUpRecovery } from '../domain/payments/follow-up-recovery.js';
import type { HostedPaymentService } from '../domain/payments/hosted-payment-service.js';
import type { PaymentService } from '../domain/payments/payment-service.js';
import type { Clock } from '../domain/ports/clock.js';
import type { NotificationRepository } from '../domain/ports/store.js';
import type { DueNotifications } from '../notifications/due-notifications.js';
import {
  createNotificationDelivery,
  type NotificationDeliverySettings,
} from '../notifications/notification-delivery.js';
import { pruneFinishedNotifications } from '../notifications/notification-retention.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** DueNotifications.count when a POST arrived (-1 for other methods); set by registerBackgroundJobs. */
    dueNotificationsAtStart: number;
  }
}

/** How often every node looks for 3-D Secure authentications and hosted card steps abandoned past their link's lifetime. */
export const EXPIRY_SWEEP_MS = 60_000; // 1 min
/**
 * How often every node looks for payments and PENDING follow-ups left in flight to resolve, and DELAYED captures that
 * are due.
 */
export const FOLLOW_UP_SWEEP_MS = 15_000; // 15 s
/** How often every node prunes finished notifications past KASSA_NOTIFICATION_RETENTION_DAYS. */
export const RETENTION_SWEEP_MS = 10 * 60_000; // 10 min

export interface BackgroundJobsDeps {
  payments: Pick<PaymentService, 'expireAbandonedAuthentications' | 'pruneFinishedAuthentications'>;
  hosted: Pick<HostedPaymentService, 'expireAbandonedHostedPayments'>;
  /** Write-ahead follow-up recovery and DELAYED captures. */
  followUpRecovery?: Pick<FollowUpRecovery, 'recoverPending' | 'captureDue'>;
  /** Payments left with their authorization in flight, resolved by asking the acquirer (in the follow-up sweep). */
  authorizationRecovery?: Pick<AuthorizationRecovery, 'recoverInFlight'>;
  /** Interval of the follow-up sweeps; default FOLLOW_UP_SWEEP_MS. */
  followUpSweepMs?: number;
  /** The card vault's key sweep (finishes re-encryption after `kassa keys rotate`, retires unused keys). */
  storedCards?: Pick<StoredCardService, 'maintainKeys'>;
  notificationRepository: NotificationRepository;
  /**
   * This process's count of notifications made due (the one its store reports to): a POST wakes the dispatcher only
   * when it moved while the POST was handled. Without it every POST wakes the dispatcher.
   */
  dueNotifications?: DueNotifications;
  clock: Clock;
  /** Days finished notifications are kept (KASSA_NOTIFICATION_RETENTION_DAYS); undefined: never pruned. */
  notificationRetentionDays?: number;
  notifications?: Partial<NotificationDeliverySettings>;
  /** Called after every delivery attempt with its outcome (metrics). */
  onDeliveryAttempt?: NotificationDeliverySettings['onAttempt'];
}

/**
 * The jobs every `kassa serve` process runs beside its HTTP server (DESIGN.md §3, §5): the outbox dispatcher that
 * delivers notifications, the expiry sweeps of abandoned 3-D Secure authentications and hosted card steps, and the
 * follow-up sweeps (PENDING follow-ups resolved, DELAYED payments captured when due). Every
 * node runs them; the database decides who acts (claims with `FOR UPDATE SKIP LOCKED`, guarded status updates).
 * They start when the server listens and stop, drained, when it closes.
 */
export function registerBackgroundJobs(app: FastifyInstance, deps: BackgroundJobsDeps): void {
  const settings = { onAttempt: deps.onDeliveryAttempt, ...deps.notifications };
  // A lease shorter than the delivery timeout would let another node resend an attempt still waiting for its answer:
  // a shortened lease (KASSA_NOTIFICATION_LEASE) shortens the timeout to stay a second inside it.
  if (settings.leaseMs !== undefined && settings.timeoutMs === undefined) {
    settings.timeoutMs = Math.min(DELIVERY_TIMEOUT_MS, settings.leaseMs - 1_000);
  }
  const delivery = createNotificationDelivery(deps.notificationRepository, deps.clock, settings, app.log);
  app.addHook('onListen', async () => delivery.start());
  app.addHook('onClose', async () => delivery.stop());
  // A POST that made notifications due has committed them when it answers: look now instead of at the next poll
  // (other nodes find them by polling). Only a POST during which the count of due notifications moved wakes the
  // dispatcher (its own writes or a concurrent request's); the count is read when the POST arrives.
  const due = deps.dueNotifications;
  if (due !== undefined) {
    app.decorateRequest('dueNotificationsAtStart', -1);
    app.addHook('onRequest', (request, _reply, done) => {
      if (request.method === 'POST') request.dueNotificationsAtStart = due.count;
      done();
    });
  }
  app.addHook('onResponse', (request, _reply, done) => {
    if (request.method === 'POST' && (due === undefined || due.count !== request.dueNotificationsAtStart)) {
      delivery.wake();
    }
    done();
  });

  // Abandoned 3-D Secure (cardholder gone, no RReq) and abandoned hosted card steps: fail the payment and delete its
  // vaulted card once links expire; finished authentications' 3-D Secure states are pruned a day later.
  let expirySweep: NodeJS.Timeout | undefined;
  app.addHook('onListen', async () => {
    expirySweep = setInterval(() => {
      deps.payments
        .expireAbandonedAuthentications()
        .then(() => deps.payments.pruneFinishedAuthentications())
        .catch((error: unknown) => app.log.error({ err: error }, '3-D Secure expiry sweep failed'));
      deps.hosted
        .expireAbandonedHostedPayments()
        .catch((error: unknown) => app.log.error({ err: error }, 'hosted payment expiry sweep failed'));
      deps.storedCards
        ?.maintainKeys()
        .then(({ moved, retired }) => {
          if (moved > 0 || retired.length > 0) app.log.info({ moved, retired }, 'card vault keys maintained');
        })
        .catch((error: unknown) => app.log.error({ err: error }, 'card vault key sweep failed'));
    }, EXPIRY_SWEEP_MS);
    expirySweep.unref();
  });
  app.addHook('onClose', async () => clearInterval(expirySweep));

  // Payments and write-ahead follow-ups left in flight (acquirer or database failure, a node killed mid-call) are
  // resolved by asking the acquirer; DELAYED payments are captured when due. One sweep at a time per node; claims
  // and row locks split the work between nodes.
  const recovery = deps.followUpRecovery;
  const authorizations = deps.authorizationRecovery;
  if (recovery || authorizations) {
    let followUpSweep: NodeJS.Timeout | undefined;
    let sweeping: Promise<unknown> = Promise.resolve();
    let busy = false;
    const sweep = () => {
      // A tick while the previous sweep still runs (a slow acquirer lookup) is skipped, not queued: queued sweeps
      // would pile up and hold a shutdown until all of them ran.
      if (busy) return;
      busy = true;
      sweeping = sweeping.then(async () => {
        await authorizations
          ?.recoverInFlight()
          .then(({ done, failed }) => {
            if (done > 0 || failed > 0) app.log.warn({ done, failed }, 'payments left in flight resolved');
          })
          .catch((error: unknown) => app.log.error({ err: error }, 'authorization recovery sweep failed'));
        await recovery
          ?.recoverPending()
          .catch((error: unknown) => app.log.error({ err: error }, 'follow-up recovery sweep failed'));
        await recovery
          ?.captureDue()
          .catch((error: unknown) => app.log.error({ err: error }, 'delayed capture sweep failed'));
        busy = false;
      });
    };
    app.addHook('onListen', async () => {
      followUpSweep = setInterval(sweep, deps.followUpSweepMs ?? FOLLOW_UP_SWEEP_MS);
      followUpSweep.unref();
    });
    app.addHook('onClose', async () => {
      clearInterval(followUpSweep);
      await sweeping;
    });
  }

  // The outbox stays bounded: finished notifications past their retention are pruned, once at start and then
  // every 10 minutes, on every node (each skips the rows another is deleting).
  const retentionDays = deps.notificationRetentionDays;
  if (retentionDays !== undefined) {
    let retentionSweep: NodeJS.Timeout | undefined;
    let running: Promise<unknown> = Promise.resolve();
    const prune = () => {
      running = running.then(() =>
        pruneFinishedNotifications(deps.notificationRepository, deps.clock, retentionDays).catch((error: unknown) =>
          app.log.error({ err: error }, 'notification retention sweep failed'),
        ),
      );
    };
    app.addHook('onListen', async () => {
      prune();
      retentionSweep = setInterval(prune, RETENTION_SWEEP_MS);
      retentionSweep.unref();
    });
    app.addHook('onClose', async () => {
      clearInterval(retentionSweep);
      await running;
    });
  }
}
