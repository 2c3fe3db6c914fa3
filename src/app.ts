import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import underPressure from '@fastify/under-pressure';
import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { DestinationStream } from 'pino';
import { type Config, internalPorts } from './config/config.js';
import { loadRuntimeSecrets, type RuntimeSecrets } from './config/data-dir.js';
import { CardVelocityGuard, cardVelocityLimits } from './domain/payments/card-testing.js';
import { systemClock } from './domain/ports/clock.js';
import { isHexId } from './domain/ports/id-generator.js';
import { hostedPagesRoutes, sessionAwareReturnUrl } from './hosted/hosted-pages.route.js';
import { HostedLinks } from './hosted/links.js';
import { threeDSPageRoutes } from './hosted/threeds/three-ds.routes.js';
import { AccessTokens } from './http/auth/access-tokens.js';
import { merchantAuth } from './http/auth/authenticate.js';
import { CredentialCache } from './http/auth/credential-cache.js';
import { AUTH_FAILURE_LIMIT, AuthFailureLimit } from './http/auth/failure-limit.js';
import { clientErrorProblem, depthLimitedJsonParser, refuseNulCharacters } from './http/hostile-input.js';
import { authenticateFirst } from './http/plugins/auth-first.js';
import { roundComputedAmounts } from './http/plugins/computed-amounts.js';
import { strictDocsCsp } from './http/plugins/docs-csp.js';
import { IdempotentReplies } from './http/plugins/idempotency.js';
import { requireJsonBodies } from './http/plugins/json-body.js';
import { serializeRequest } from './http/plugins/log-redaction.js';
import { problemErrorHandler, sendProblem } from './http/problem.js';
import { adminSurchargeRoutes } from './http/routes/admin-surcharge.route.js';
import { cardRoutes } from './http/routes/cards.route.js';
import { followUpRoutes } from './http/routes/follow-ups.route.js';
import { healthRoutes } from './http/routes/health.route.js';
import { KassaMetrics, metricsRoute } from './http/routes/metrics.route.js';
import { notificationRoutes } from './http/routes/notifications.route.js';
import { oauthTokenRoute } from './http/routes/oauth-token.route.js';
import { withRequestExamples } from './http/routes/openapi-examples.js';
import { paymentRoutes } from './http/routes/payments.route.js';
import { schemaRoutes } from './http/routes/schemas.route.js';
import { sessionRoutes } from './http/routes/sessions.route.js';
import { addSharedSchemas, notificationWebhooks, operationIdOf } from './http/routes/shared-schemas.js';
import { securityHeaders } from './http/security-headers.js';
import { simulatorAcsRoutes } from './integrations/threeds-simulator/simulator-acs-routes.js';
import { DueNotifications } from './notifications/due-notifications.js';
import type { NotificationDeliverySettings } from './notifications/notification-delivery.js';
import { registerBackgroundJobs } from './server/background-jobs.js';
import { trackRequests } from './server/lifecycle.js';
import { buildServices, openDatabase, type ServiceOverrides, type Services } from './services.js';
import { KyselyAttemptCounters } from './storage/attempt-counters.kysely.js';
import { RedisAttemptCounters } from './storage/attempt-counters.redis.js';
import { KyselyAuthEpoch } from './storage/auth-epoch.kysely.js';
import type { Db } from './storage/create-db.js';
import { KyselyStore } from './storage/kysely-store.js';
import { KyselyPaymentRepository } from './storage/payment-repository.kysely.js';
import { PostgresAuthListener } from './storage/postgres-auth-listener.js';
import { kyselyRateLimitStore } from './storage/rate-limit-store.kysely.js';
import type { ReadAlongside } from './storage/read-alongside.js';
import { sealClearWebhookSecrets, WebhookSecretBox } from './storage/webhook-secret-box.js';

/** Request body limit: payment requests are small. */
const BODY_LIMIT = 256 * 1024; // 256 KiB

/**
 * TLS 1.2 cipher suites: ECDHE key exchange with AEAD ciphers only, Mozilla's "intermediate" profile (v5.7) without
 * its finite-field DHE suites: no static-RSA key exchange (no forward secrecy) and no CBC (padding oracles). TLS 1.3
 * keeps Node's defaults (all AEAD). PCI DSS 4.2.1 (strong cryptography in transit).
 */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/** How often Node checks connections against the request and header timeouts (ms; Node's default is 30 s). */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

/** The JSON APIs' URL prefixes: bodies must be `application/json` (http/plugins/json-body.ts). */
const JSON_API_PREFIXES = ['/api/', '/admin/'] as const;

/**
 * How long a Redis command may wait for its answer (KASSA_REDIS_URL), milliseconds. Redis answers in well under a
 * millisecond; one that has stopped answering (paused, overloaded, or behind a network that drops packets) would
 * otherwise hold every request that asks a limiter for as long as TCP keeps the connection (minutes). The limiters
 * then let the request through (fail open), as for a Redis that is down.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

/** The merchant API's path prefixes: the seed's `/api/v1` and Paygate's `/api/v2` (paygate-v2-wire.md §1). */
export const MERCHANT_API_PREFIXES = ['/api/v1', '/api/v2'] as const;

/** Replaceable adapters, for tests and for operators who bring their own. */
export interface AppOverrides extends ServiceOverrides {
  /** Told of every route as it is registered (the reliability suite enumerates the routes it attacks). */
  onRoute?: (route: { method: string | string[]; url: string }) => void;
  db?: Db;
  secrets?: RuntimeSecrets;
  /** Where logs go (default stdout). */
  logStream?: DestinationStream;
  /** Notification delivery settings (tests shorten the poll interval and the timeout, and stub DNS). */
  notifications?: Partial<NotificationDeliverySettings>;
}

/** A built (not yet listening) Kassa. */
export interface Kassa {
  app: FastifyInstance;
  services: Services;
  db: Db;
  secrets: RuntimeSecrets;
  /** Signs hosted-page links. */
  links: HostedLinks;
  /**
   * Graceful close: refuses new requests with 503, lets those being handled answer, stops background jobs, closes the
   * database. `graceMs` (a served process passes SHUTDOWN_GRACE_MS) keeps connections open that long first, so a
   * request already on its way is answered (503, `connection: close`) instead of its connection being reset.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * The composition root (DESIGN.md §1): builds adapters once, wires the domain services and registers the HTTP
 * plugins. HTTPS with TLS ≥ 1.2 (spec §1.3), or plain HTTP behind a TLS-terminating proxy (`KASSA_TLS=proxy`),
 * which then must say `X-Forwarded-Proto: https`.
 */
export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<Kassa> {
  const secrets = overrides.secrets ?? (await loadRuntimeSecrets(config));
  const db = await openDatabase(config, overrides.db);
  // Webhook secrets of databases from before sealing are sealed now (the migrations do not hold the data key).
  await sealClearWebhookSecrets(db.kysely, new WebhookSecretBox(secrets.dataKey));
  const clock = overrides.clock ?? systemClock;

  const logger = {
    level: config.logLevel,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.body',
        'body',
        '*.card.number',
        '*.card.securityCode',
        'client_secret',
      ],
      censor: '[redacted]',
    },
    // Query strings carry secrets (hosted-link tokens, a client_secret sent the wrong way): logged URLs redact them.
    serializers: { req: serializeRequest },
    ...(overrides.logStream && { stream: overrides.logStream }),
  };
  // A client must send its whole request within requestTimeout (headers within headersTimeout): a body trickled a
  // byte at a time is cut with 408 instead of holding a connection for ever (slowloris).
  const serverTimeouts = {
    headersTimeout: config.timeouts.headersMs,
    requestTimeout: config.timeouts.requestMs,
    keepAliveTimeout: config.timeouts.keepAliveMs,
    connectionsCheckingInterval: Math.min(CONNECTIONS_CHECKING_INTERVAL_MS, config.timeouts.headersMs),
  };
  const tlsOptions =
    secrets.tls && config.tls.mode === 'on'
      ? {
          https: {
            key: secrets.tls.key,
            cert: secrets.tls.cert,
            minVersion: 'TLSv1.2' as const,
            ciphers: TLS12_CIPHERS,
            honorCipherOrder: true,
            ...serverTimeouts,
          },
        }
      : { http: serverTimeouts };
  const app = Fastify({
    ...tlsOptions,
    logger,
    bodyLimit: BODY_LIMIT,
    requestTimeout: config.timeouts.requestMs,
    keepAliveTimeout: config.timeouts.keepAliveMs,
    // A request arriving while Kassa closes is refused by server/lifecycle.ts as problem+json (503 SERVICE_UNAVAILABLE,
    // `connection: close`), not by Fastify's own plain-JSON 503.
    return503OnClosing: false,
    // Behind KASSA_TLS=proxy, request.ip is the right-most X-Forwarded-For entry not added by one of the
    // KASSA_TRUSTED_PROXIES trusted hops; the left-most entries are whatever the client wrote (per-IP limits).
    trustProxy: (_address: string, hop: number) => config.tls.mode === 'proxy' && hop < config.trustedProxies,
    genReqId: () => `req_${randomUUID().replaceAll('-', '')}`,
    requestIdHeader: false,
    ajv: { customOptions: { allErrors: true, removeAdditional: false, coerceTypes: false, useDefaults: true } },
    routerOptions: { ignoreTrailingSlash: true },
    clientErrorHandler: clientErrorProblem,
    // Errors the router raises before any handler (a URL that is not valid percent-encoded UTF-8, a path parameter
    // over 100 characters) are problem+json too; a parameter that long names nothing, so it is a 404 like any unknown id.
    frameworkErrors: (error, request, reply) => {
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
        return sendProblem(request, reply, 'NOT_FOUND', 'no such resource');
      return sendProblem(request, reply, 'VALIDATION_FAILED', 'the URL is not valid percent-encoded UTF-8', [
        { field: 'url', message: 'is not valid percent-encoded UTF-8' },
      ]);
    },
  }) as unknown as FastifyInstance;
  // Further connections are closed at once beyond the cap (node:net maxConnections), so one client cannot exhaust the
  // process's file descriptors.
  if (config.maxConnections > 0) app.server.maxConnections = config.maxConnections;
  const onRoute = overrides.onRoute;
  if (onRoute) app.addHook('onRoute', (route) => onRoute({ method: route.method, url: route.url }));

  let invalidAuthenticationResponses = 0;
  const links = new HostedLinks(secrets.tokenSecret, config.publicUrl);
  // Built right after the services (it reads the outbox through them); the payment hook only fires on requests.
  let metrics: KassaMetrics | undefined;
  // Rate limits, authentication failures and card-testing velocity count across every node (issue 14): in Redis
  // when KASSA_REDIS_URL is set, else in the database.
  // ioredis is loaded only when it is used: without it, every node (and every test server) starts ~0.13 s sooner.
  const redis = config.redisUrl
    ? new (await import('ioredis')).Redis(config.redisUrl, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 2_000,
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      })
    : undefined;
  redis?.on('error', (error) => app.log.warn({ err: error }, 'rate-limit Redis unavailable'));
  if (redis) app.addHook('onClose', async () => void redis.disconnect());
  const attemptCounters = redis ? new RedisAttemptCounters(redis) : new KyselyAttemptCounters(db.kysely);
  const cardVelocity = new CardVelocityGuard(
    attemptCounters,
    () => clock.now(),
    cardVelocityLimits(config.cardTriesPerHour),
  );
  // PostgreSQL with KASSA_POSTGRES_LISTEN=on: the credentials epoch and authentication failures arrive by LISTEN/NOTIFY,
  // so an authenticated request needs no read of them (issue 12; off, or the connection down: read per request).
  const authListener = db.listenerClient
    ? new PostgresAuthListener(
        db.listenerClient,
        () => clock.now(),
        (error) =>
          app.log.warn({ err: error }, 'credentials LISTEN connection lost; reading the epoch per request meanwhile'),
      )
    : undefined;
  if (authListener) {
    await authListener.start();
    app.addHook('onClose', () => authListener.close());
  }
  const dueNotifications = new DueNotifications();
  const services = buildServices(
    config,
    db,
    secrets,
    overrides,
    {
      returnUrl: sessionAwareReturnUrl(links, clock),
      onPaymentFinal: (payment) => metrics?.paymentFinal(payment),
      onInvalidAuthenticationResponse: (payId, errors) => {
        invalidAuthenticationResponses++;
        app.log.error(
          { payId, errors, invalidAuthenticationResponses },
          'authenticationResponse failed its schema; not sent',
        );
      },
      onUnexpectedError: (payId, step, error) =>
        app.log.error({ payId, step, err: error }, 'payment step failed unexpectedly'),
      onUnknownOutcome: (xId, step, error) =>
        app.log.warn({ xId, step, err: error }, 'follow-up left PENDING; the recovery sweep completes it'),
      onCredentialsChanged: async () => authListener?.refresh(),
      onNotificationDue: () => dueNotifications.madeDue(),
    },
    { velocity: cardVelocity, onRefused: (reason) => metrics?.cardTestingRefused(reason) },
  );
  metrics = new KassaMetrics(services.notifications);
  const tokens = new AccessTokens(secrets.tokenSecret, config.tokenTtlSeconds, () => clock.now());
  const authEpoch = new KyselyAuthEpoch(db.kysely);
  // Counted in the database: the failure count and the credentials epoch are one read per Basic request (issue 12),
  // and none while the listener knows the epoch and of no failure of that client id and address.
  const authFailures = new AuthFailureLimit(
    attemptCounters,
    () => clock.now(),
    AUTH_FAILURE_LIMIT.max,
    redis
      ? undefined
      : (key, windowMs, now, alongside) =>
          // alongside: what lookupAuth below builds (KyselyPaymentRepository.byPayIdAlongside, byTransIdAlongside).
          authEpoch.readWithAttempts(key, windowMs, now, alongside as ReadAlongside<unknown> | undefined),
    redis || !authListener ? undefined : (key, windowMs, now) => authListener.epochIfNoFailures(key, windowMs, now),
  );
  const readEpoch = async () => authListener?.liveEpoch() ?? authEpoch.read();
  const credentialCache = new CredentialCache(services.merchants, readEpoch);
  const auth = merchantAuth(credentialCache, tokens, authFailures);
  // getByPayId and getByTransId on SQLite: the payment is read by the credentials check's statement
  // (KyselyAuthEpoch.readWithAttempts), one read transaction instead of two (issue 12). PostgreSQL shares both reads
  // among concurrent requests instead.
  const lookupAuth = db.dialect === 'sqlite' ? sqliteLookupAuth() : auth;
  function sqliteLookupAuth() {
    const lookupPayments = new KyselyPaymentRepository(db.kysely);
    return merchantAuth(credentialCache, tokens, authFailures, {
      alongside: (request, merchantId) => {
        const { payID, transID } = request.params as { payID?: unknown; transID?: unknown };
        if (typeof payID === 'string') {
          return isHexId(payID) ? lookupPayments.byPayIdAlongside(merchantId, payID) : undefined;
        }
        // The route's schema has checked transID (preHandler hooks run after validation).
        return typeof transID === 'string' ? lookupPayments.byTransIdAlongside(merchantId, transID) : undefined;
      },
    });
  }
  const idempotentReplies = new IdempotentReplies(services.idempotency, secrets.dataKey);

  app.setErrorHandler(problemErrorHandler);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, 'NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`),
  );
  // Graceful shutdown (server/lifecycle.ts): registered first, so a request arriving while closing touches nothing.
  const lifecycle = trackRequests(app);
  // The synchronous hooks are callback hooks: an async one costs a promise and a microtask per request (issue 12).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (
      config.tls.mode === 'proxy' &&
      request.headers['x-forwarded-proto'] !== 'https' &&
      !request.url.startsWith('/healthz')
    ) {
      // Answered: the request goes no further (a callback hook that sends does not call done).
      sendProblem(request, reply, 'HTTPS_REQUIRED', 'plain HTTP is refused; connect over HTTPS');
      return;
    }
    done();
  });
  // After authentication (a route's onRequest hook), before the body is read: JSON APIs take application/json only.
  app.addHook('preParsing', requireJsonBodies(JSON_API_PREFIXES));
  app.addHook('preValidation', refuseNulCharacters);
  // Merchant API answers carry payment data (card summaries, amounts, customer data): no cache may keep them
  // (RFC 9111 §5.2.2.5; PCI DSS 3.2).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (MERCHANT_API_PREFIXES.some((p) => request.url.startsWith(`${p}/`))) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
  // JSON bodies nested deeper than any request shape are refused before anything walks them, and bodies naming a
  // member twice after parsing (http/hostile-input.ts); prototype poisoning is refused by Fastify's parser.
  const jsonParser = depthLimitedJsonParser(app.getDefaultJsonParser('error', 'ignore'));
  app.removeContentTypeParser('application/json');
  // As bytes: the parser checks them as UTF-8 before decoding (RFC 8259 §8.1).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, jsonParser);

  // Helmet's security headers (HSTS, nosniff, frame options, …) on every answer; the docs page sets its own CSP.
  // Helmet's headers are computed once (http/security-headers.ts): @fastify/helmet built its middleware anew for every
  // request, and the middleware's eleven setHeader calls were 5 % of a lookup (issue 12).
  const helmetHeaders = securityHeaders({ contentSecurityPolicy: false });
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(helmetHeaders);
    done();
  });
  await app.register(formbody);
  // Rate limits count across every node (issue 14): in Redis when KASSA_REDIS_URL is set, else in PostgreSQL; SQLite
  // (one node) counts in memory. A store that cannot answer lets the request through: a limiter outage must not take
  // the API down with it. Redis through skipOnError; PostgreSQL's store decides itself, and fails a request whose
  // counter read timed out (storage/rate-limit-store.kysely.ts), which skipOnError would let through to wait again.
  await app.register(rateLimit, {
    global: false,
    ...(redis
      ? { redis, nameSpace: 'kassa-rl-', skipOnError: true }
      : db.dialect === 'postgres'
        ? { store: kyselyRateLimitStore(db.kysely), skipOnError: false }
        : { skipOnError: true }),
  });
  await app.register(underPressure, {
    maxEventLoopDelay: config.maxEventLoopDelayMs, // ms; 0 turns the check off
    exposeStatusRoute: false,
    pressureHandler: (request, reply) => {
      sendProblem(request, reply, 'SERVICE_UNAVAILABLE');
    },
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Kassa payment gateway',
        version: '1.0.0',
        description:
          'Card payments over REST/JSON, wire-compatible with Paygate REST v2 (`/api/v2` and `/api/v1` serve the same ' +
          'API). Authenticate with HTTP Basic (merchantId:apiKey) or an OAuth 2 client-credentials token. Amounts are ' +
          'in ISO 4217 minor units. Errors are application/problem+json (the token endpoint answers RFC 6749 JSON). ' +
          'Guides: docs/ in the repository.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: config.publicUrl }],
      tags: [
        { name: 'payments', description: 'Create payments, read them, capture, refund and reverse them' },
        { name: 'sessions', description: 'Hosted payment page sessions' },
        { name: 'cards', description: 'Stored cards (pseudo card numbers)' },
        { name: 'notifications', description: 'The notification delivery log and redelivery' },
        { name: 'auth', description: 'OAuth 2 client credentials (RFC 6749 §4.4)' },
        { name: 'schemas', description: 'The published JSON Schemas of answers and notifications' },
      ],
      components: {
        securitySchemes: {
          basic: { type: 'http', scheme: 'basic' },
          oauth2: {
            type: 'oauth2',
            flows: { clientCredentials: { tokenUrl: '/authorization/oauth/token', scopes: {} } },
          },
        },
      },
      security: [{ basic: [] }, { oauth2: [] }],
      webhooks: notificationWebhooks(),
    },
    // Every operation gets a unique operationId from its method and path (both prefixes: `postApiV2Payments`).
    transform: ({ schema, url, route }) => ({
      schema: { ...schema, operationId: schema?.operationId ?? operationIdOf(String(route.method), url) },
      url,
    }),
    // Request bodies get their documented examples (http/routes/openapi-examples.ts).
    transformObject: (document) =>
      'openapiObject' in document ? withRequestExamples(document.openapiObject) : document.swaggerObject,
    // Shared contract schemas appear under their own names in components.schemas.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  addSharedSchemas(app);
  // Answers are built by mappers typed by the contract (src/contracts/), so their shape is checked at compile time and
  // by test/compat against the JSON Schemas; response schemas document them. Plain JSON.stringify sends them: the same
  // bytes as an Idempotency-Key replay, and no serializer to compile per route and status (docs/architecture.md).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // The API docs page gets a strict CSP: its own scripts (and swagger-ui's inline ones by hash) only, no framing,
  // no third-party images (the online validator badge is off).
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { validatorUrl: null },
    staticCSP: true,
    transformStaticCSP: strictDocsCsp,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes, {
    readiness: {
      dialect: db.dialect,
      ping: async () => {
        await sql`select 1`.execute(db.kysely);
      },
    },
  });
  await app.register(metricsRoute, { metrics, adminToken: config.adminToken });
  await app.register(oauthTokenRoute, {
    merchants: services.merchants,
    tokens,
    failures: authFailures,
    requestsPerMinute: config.tokenRequestsPerMinute,
  });
  await app.register(adminSurchargeRoutes, { surcharge: services.surcharge, adminToken: config.adminToken });
  await app.register(schemaRoutes);
  // Every `kassa serve` process delivers notifications and sweeps expired links (server/background-jobs.ts).
  registerBackgroundJobs(app, {
    payments: services.payments,
    followUpRecovery: services.followUpRecovery,
    authorizationRecovery: services.authorizationRecovery,
    followUpSweepMs: overrides.followUpRecovery?.sweepMs,
    hosted: services.hosted,
    storedCards: services.storedCards,
    notificationRepository: new KyselyStore(db.kysely, new WebhookSecretBox(secrets.dataKey)).notifications,
    dueNotifications,
    clock,
    notificationRetentionDays: config.notificationRetentionDays,
    notifications: {
      leaseMs: config.notificationLeaseMs,
      forbiddenPorts: internalPorts(config),
      ...overrides.notifications,
    },
    onDeliveryAttempt: (outcome) => metrics?.deliveryAttempt(outcome),
  });
  // The merchant API: one route table under both prefixes (paygate-v2-wire.md §1: clients hard-code /api/v2, the seed
  // says /api/v1).
  for (const prefix of MERCHANT_API_PREFIXES) {
    await app.register(
      async (api) => {
        // Authentication first (before the body is parsed or validated): 401 before any 400 or 415.
        api.addHook('onRoute', authenticateFirst(auth, lookupAuth));
        api.addHook('preValidation', roundComputedAmounts);
        await api.register(paymentRoutes, {
          payments: services.payments,
          hosted: services.hosted,
          links,
          idempotency: idempotentReplies,
          auth,
          lookupAuth,
          apiUrl: `${config.publicUrl}${prefix}`,
        });
        await api.register(sessionRoutes, {
          hosted: services.hosted,
          idempotency: idempotentReplies,
          auth,
          links,
          clock,
          apiUrl: `${config.publicUrl}${prefix}`,
        });
        await api.register(followUpRoutes, {
          followUps: services.followUps,
          idempotency: idempotentReplies,
          auth,
          apiUrl: `${config.publicUrl}${prefix}`,
        });
        await api.register(notificationRoutes, {
          notifications: services.notifications,
          idempotency: idempotentReplies,
          auth,
        });
        await api.register(cardRoutes, { storedCards: services.storedCards, auth });
      },
      { prefix },
    );
  }
  await app.register(hostedPagesRoutes, { hosted: services.hosted, links, clock });
  await app.register(threeDSPageRoutes, { payments: services.payments });
  const simulator = services.threeDSSimulator;
  if (simulator !== undefined) {
    await app.register(simulatorAcsRoutes, { simulator });
    app.addHook('onClose', async () => simulator.stop());
  }
  return {
    app,
    services,
    db,
    secrets,
    links,
    close: async (options = {}) => {
      lifecycle.beginClosing();
      if (options.graceMs) await lifecycle.grace(options.graceMs);
      await app.close();
      await lifecycle.drain();
      await db.close();
    },
  };
}
