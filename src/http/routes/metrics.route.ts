import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { NotificationService } from '../../domain/notifications/notification-service.js';
import type { CardTestingRefusal } from '../../domain/payments/card-testing.js';
import type { Payment } from '../../domain/payments/payment.js';
import { adminAuth } from './admin-auth.js';

/**
 * Kassa's Prometheus metrics (DESIGN.md §9). Counters are per process (each node exposes its own, as Prometheus
 * expects); the outbox gauges are read from the database at scrape time through its (status, next_attempt_at) index.
 * `/metrics` needs `Authorization: Bearer <KASSA_ADMIN_TOKEN>` when that token is set.
 */
export class KassaMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'kassa_http_requests_total',
    help: 'HTTP requests answered, by method, route and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'kassa_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, in seconds',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly payments = new Counter({
    name: 'kassa_payments_total',
    help: 'Payments whose authorization outcome became final, by status and integration type',
    labelNames: ['status', 'integration_type'] as const,
    registers: [this.registry],
  });
  private readonly threeDS = new Counter({
    name: 'kassa_three_ds_results_total',
    help: 'Final 3-D Secure transStatus of payments (EMVCo), by value',
    labelNames: ['trans_status'] as const,
    registers: [this.registry],
  });
  private readonly surcharge = new Counter({
    name: 'kassa_surcharge_applied_total',
    help: 'Payments authorized with a card surcharge applied',
    registers: [this.registry],
  });
  private readonly attempts = new Counter({
    name: 'kassa_notification_delivery_attempts_total',
    help: 'Notification delivery attempts by what they led to (DELIVERED, PENDING = will retry, FAILED = gave up)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly cardTesting = new Counter({
    name: 'kassa_card_testing_refusals_total',
    help: 'Hosted card tries refused by the card-testing protection: session_tries (the session cap), card and ip (velocity limits)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor(notifications: NotificationService) {
    collectDefaultMetrics({ register: this.registry, prefix: 'kassa_' });
    const registry = this.registry;
    let backlog: Promise<{ pending: number; oldestDueAgeSeconds: number; failed: number }> | undefined;
    // One database read per scrape, shared by the three gauges.
    const read = () => {
      backlog ??= notifications.backlog().finally(() => setTimeout(() => (backlog = undefined), 0));
      return backlog;
    };
    new Gauge({
      name: 'kassa_outbox_pending',
      help: 'Notifications waiting for delivery',
      registers: [registry],
      async collect() {
        this.set((await read()).pending);
      },
    });
    new Gauge({
      name: 'kassa_outbox_oldest_due_age_seconds',
      help: 'How long the oldest waiting notification has been due, in seconds',
      registers: [registry],
      async collect() {
        this.set((await read()).oldestDueAgeSeconds);
      },
    });
    new Gauge({
      name: 'kassa_outbox_failed',
      help: 'Notifications that exhausted the retry schedule (redeliver them through the API)',
      registers: [registry],
      async collect() {
        this.set((await read()).failed);
      },
    });
  }

  /**
   * The request counter and duration histogram bound to each (method, route, status) seen: prom-client hashes a
   * label object on every `inc` and `observe` (issue 12: ~1 % of a lookup); bound once, a request only counts. As
   * many entries as the labels' own series (routes are patterns, statuses few).
   */
  private readonly requestSeries = new Map<
    string,
    { count: { inc(): void }; duration: { observe(seconds: number): void } }
  >();

  /**
   * Records an answered request. `route` is the route pattern (never the raw URL: ids would explode the labels);
   * `seconds` its duration.
   */
  request(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.requestSeries.get(key);
    if (series === undefined) {
      series = {
        count: this.requests.labels({ method, route, status: String(status) }),
        duration: this.duration.labels({ method, route }),
      };
      this.requestSeries.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }

  /** Records a payment whose authorization outcome is final. */
  paymentFinal(payment: Payment): void {
    this.payments.inc({ status: payment.status, integration_type: payment.integrationType });
    if (payment.threeDS) this.threeDS.inc({ trans_status: payment.threeDS.transStatus });
    if (payment.status !== 'FAILED' && payment.surcharge.status === 'APPLIED') this.surcharge.inc();
  }

  /** Records a card try refused by the card-testing protection (domain/payments/card-testing.ts). */
  cardTestingRefused(reason: CardTestingRefusal): void {
    this.cardTesting.inc({ reason });
  }

  /** Records a notification delivery attempt. */
  deliveryAttempt(outcome: string): void {
    this.attempts.inc({ outcome });
  }
}

/**
 * `GET /metrics` in the Prometheus text format, and the request counters of every route (fastify-plugin lifts the
 * encapsulation so that the onResponse hook sees the whole app).
 */
export const metricsRoute = fp(async function metricsRoute(
  app: FastifyInstance,
  opts: { metrics: KassaMetrics; adminToken?: string },
) {
  // A callback hook: an async one costs a promise and a microtask per request (issue 12).
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route !== '/metrics') opts.metrics.request(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  // Payment counts are business data: with KASSA_ADMIN_TOKEN set, Prometheus scrapes with it as a Bearer token.
  const preHandler = opts.adminToken ? adminAuth(opts.adminToken) : undefined;
  app.get('/metrics', { schema: { hide: true }, ...(preHandler && { preHandler }) }, async (_request, reply) =>
    reply.type(opts.metrics.registry.contentType).send(await opts.metrics.registry.metrics()),
  );
});
