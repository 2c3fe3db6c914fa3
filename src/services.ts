import { randomBytes, randomUUID } from 'node:crypto';
import { V7Generator } from 'uuidv7';
import { type Config, describeDatabaseLocation, maskUrlPassword } from './config/config.js';
import type { RuntimeSecrets } from './config/data-dir.js';
import { StoredCardService } from './domain/cards/stored-card-service.js';
import { IdempotencyService } from './domain/idempotency/idempotency.js';
import { MerchantService } from './domain/merchants/merchant-service.js';
import { NotificationService } from './domain/notifications/notification-service.js';
import { DeadlineAcquirer } from './domain/payments/acquirer-deadline.js';
import { AuthorizationRecovery, type AuthorizationRecoverySettings } from './domain/payments/authorization-recovery.js';
import type { CardTestingRefusal, CardVelocityGuard } from './domain/payments/card-testing.js';
import { FollowUpRecovery, type FollowUpRecoverySettings } from './domain/payments/follow-up-recovery.js';
import { FollowUpService, type FollowUpServiceDeps } from './domain/payments/follow-up-service.js';
import { HostedPaymentService } from './domain/payments/hosted-payment-service.js';
import { PaymentService, type PaymentServiceDeps } from './domain/payments/payment-service.js';
import type { Acquirer } from './domain/ports/acquirer.js';
import type { BinTable } from './domain/ports/bin-table.js';
import type { CardVault } from './domain/ports/card-vault.js';
import { type Clock, systemClock } from './domain/ports/clock.js';
import type { DirectoryServer } from './domain/ports/directory-server.js';
import type { IdGenerator } from './domain/ports/id-generator.js';
import { randomPool } from './domain/ports/random-pool.js';
import type { Store } from './domain/ports/store.js';
import { SurchargeSettingsService } from './domain/surcharge/surcharge-settings-service.js';
import { DeadlineDirectoryServer } from './domain/threeds/directory-server-deadline.js';
import { HostedThreeDSLinks } from './hosted/threeds/three-ds-links.js';
import { FileSettlementLedger } from './integrations/acquirer-simulator/settlement-ledger.js';
import { SimulatorAcquirer } from './integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from './integrations/bins/csv-bin-table.js';
import {
  SimulatorDirectoryServer,
  type SimulatorDirectoryServerOptions,
} from './integrations/threeds-simulator/simulator-directory-server.js';
import { KyselyCardKeyring } from './storage/card-keyring.kysely.js';
import { KyselyCardVault } from './storage/card-vault.kysely.js';
import { createDb, type Db, migrateToLatest } from './storage/create-db.js';
import { KyselyStore } from './storage/kysely-store.js';
import { KyselyStoredCardVault } from './storage/stored-card-vault.kysely.js';
import { WebhookSecretBox } from './storage/webhook-secret-box.js';

// The domain half of the composition root (DESIGN.md §1): the adapters and domain services shared by the server
// (app.ts adds the HTTP layer over them) and the CLI's one-shot commands, which so load no Fastify, no HTTP plugins
// and no pages: a compiled `kassa merchant create` takes 0.54 s instead of 0.64 s (docs/architecture.md).

/** Replaceable domain adapters and sweep settings, for tests and for operators who bring their own. */
export interface ServiceOverrides {
  clock?: Clock;
  ids?: IdGenerator;
  bins?: BinTable;
  directoryServer?: DirectoryServer;
  acquirer?: Acquirer;
  /**
   * How long an acquirer call may take, milliseconds (default ACQUIRER_TIMEOUT_MS, 20 s; tests of a call that never
   * answers shorten it, or lengthen it to keep a call hanging).
   */
  acquirerTimeoutMs?: number;
  /** Deadline of every directory server call, ms (default DIRECTORY_SERVER_TIMEOUT_MS, 10 s). */
  directoryServerTimeoutMs?: number;
  /** The card vault of the 3-D Secure pages and the hosted card step (tests wrap the Kysely one to order its writes). */
  cardVault?: CardVault;
  /** Follow-up recovery and DELAYED-capture sweeps (tests shorten the interval and the pending age). */
  followUpRecovery?: Partial<FollowUpRecoverySettings> & { sweepMs?: number };
  /** The sweep of payments left with their authorization in flight (tests shorten the pending age). */
  authorizationRecovery?: Partial<AuthorizationRecoverySettings>;
  /** Settings of the built-in 3-D Secure simulator (tests shorten the decoupled delay, or silence the 3DS Method). */
  threeDSSimulator?: Pick<
    SimulatorDirectoryServerOptions,
    'decoupledDelayMs' | 'resultsRetryDelayMs' | 'methodCallback'
  >;
}

/** Domain services, built once and handed to the HTTP layer and the CLI. */
export interface Services {
  merchants: MerchantService;
  payments: PaymentService;
  followUps: FollowUpService;
  /** Resolves PENDING follow-ups and captures DELAYED payments when due (background sweeps). */
  followUpRecovery: FollowUpRecovery;
  /** Resolves payments a request left with their authorization in flight (background sweep, with the follow-ups'). */
  authorizationRecovery: AuthorizationRecovery;
  idempotency: IdempotencyService;
  notifications: NotificationService;
  surcharge: SurchargeSettingsService;
  hosted: HostedPaymentService;
  /** Stored credentials: the card vault of pseudo card numbers and its key rotation. */
  storedCards: StoredCardService;
  /** The built-in simulated DS + ACS, when no other DirectoryServer is configured (its pages live under /simulator). */
  threeDSSimulator?: SimulatorDirectoryServer;
}
/**
 * uuidv7's generator drawing from the process's random pool, not its own 8-word buffer
 * (src/domain/ports/random-pool.ts).
 */
const v7Generator = new V7Generator(randomPool);

/**
 * Node's crypto (v4) and the uuidv7 package (v7, RFC 9562: a millisecond timestamp, then a counter that keeps ids of
 * the same millisecond in order, then random bits) as the IdGenerator port.
 */
export const cryptoIds: IdGenerator = {
  uuid: () => randomUUID(),
  timeOrderedUuid: () => v7Generator.generate().toString(),
  randomToken: (bytes) => randomBytes(bytes).toString('base64url'),
};

/**
 * Opens the configured database (or the override) and brings its schema up to date (`migrate`: another migration
 * step, e.g. `kassa migrate --to`).
 * @throws Error naming DATABASE_URL (password masked, never printed) and the cause when the database cannot be
 *   reached, opened or migrated: start-up stops with it.
 */
export async function openDatabase(
  config: Config,
  override?: Db,
  migrate: (db: Db) => Promise<unknown> = migrateToLatest,
): Promise<Db> {
  let db: Db | undefined;
  try {
    db =
      override ??
      createDb(
        config.database.dialect === 'sqlite'
          ? { dialect: 'sqlite', file: config.database.file }
          : {
              dialect: 'postgres',
              url: config.database.url,
              preparedStatements: config.database.preparedStatements,
              listen: config.database.listen,
            },
      );
    await migrate(db);
    // After the migrations, which may run for minutes (an index built over every payment).
    if (!override && config.database.dialect === 'postgres') db.setQueryTimeout?.(config.database.queryTimeoutMs);
    return db;
  } catch (error) {
    if (!override) await db?.close().catch(() => undefined);
    throw new Error(
      `cannot open the database at ${describeDatabaseLocation(config)}: ${databaseErrorText(error, config)}`,
      {
        cause: error,
      },
    );
  }
}

/** The message of a database error with the configured password masked wherever it appears. */
function databaseErrorText(error: unknown, config: Config): string {
  const e = error as { code?: unknown; message?: unknown };
  let text = [typeof e?.code === 'string' ? e.code : '', typeof e?.message === 'string' ? e.message : String(error)]
    .filter(Boolean)
    .join(': ');
  if (config.database.dialect === 'postgres') {
    const password = URL.canParse(config.database.url) ? decodeURIComponent(new URL(config.database.url).password) : '';
    if (password) text = text.replaceAll(password, '***');
    text = text.replaceAll(config.database.url, maskUrlPassword(config.database.url));
  }
  return text;
}

/** Builds the domain services over a database (shared by the server and the CLI). */
export function buildServices(
  config: Config,
  db: Db,
  secrets: RuntimeSecrets,
  overrides: ServiceOverrides = {},
  hooks: Pick<
    PaymentServiceDeps,
    'onInvalidAuthenticationResponse' | 'onUnexpectedError' | 'returnUrl' | 'onPaymentFinal'
  > &
    Pick<FollowUpServiceDeps, 'onUnknownOutcome'> & {
      /** After an API key or merchant change made through this node (MerchantService's `credentialsChanged`). */
      onCredentialsChanged?: () => Promise<void>;
      /** For every notification write that makes one due for delivery (notifications/due-notifications.ts). */
      onNotificationDue?: () => void;
    } = {},
  cardTesting: { velocity?: CardVelocityGuard; onRefused?: (reason: CardTestingRefusal) => void } = {},
): Services {
  const { onCredentialsChanged, onNotificationDue, ...paymentHooks } = hooks;
  const clock = overrides.clock ?? systemClock;
  const ids = overrides.ids ?? cryptoIds;
  const store: Store = new KyselyStore(db.kysely, new WebhookSecretBox(secrets.dataKey), { onNotificationDue });
  const bins = overrides.bins ?? CsvBinTable.fromFile(config.binFile);
  const directoryServer =
    overrides.directoryServer ??
    new SimulatorDirectoryServer({ publicUrl: config.publicUrl, clock, ...overrides.threeDSSimulator });
  // Every acquirer call has a deadline inside the recovery sweeps' pending ages (domain/payments/acquirer-deadline.ts).
  const acquirer = new DeadlineAcquirer(
    overrides.acquirer ??
      new SimulatorAcquirer(
        bins,
        config.acquirerSimulatorLedger ? new FileSettlementLedger(config.acquirerSimulatorLedger) : undefined,
        () => clock.now(),
      ),
    overrides.acquirerTimeoutMs,
  );
  // One vault for both flows that hold a card between steps (3-D Secure pages, hosted card step).
  const cardKeyring = new KyselyCardKeyring(db.kysely, secrets.dataKey);
  const cardVault = overrides.cardVault ?? new KyselyCardVault(db.kysely, cardKeyring, () => clock.now());
  const storedCards = new StoredCardService({
    vault: new KyselyStoredCardVault(db.kysely, cardKeyring),
    keys: cardKeyring,
    clock,
    dataKey: secrets.dataKey,
  });
  // One set of deps for every payment operation, DIRECT and hosted alike.
  const paymentDeps: PaymentServiceDeps = {
    store,
    clock,
    ids,
    bins,
    // Every DS call has a deadline far inside the authorization sweep's pending age (directory-server-deadline.ts).
    directoryServer: new DeadlineDirectoryServer(directoryServer, overrides.directoryServerTimeoutMs),
    acquirer,
    links: new HostedThreeDSLinks(config.publicUrl, secrets.dataKey),
    publicUrl: config.publicUrl,
    dataKey: secrets.dataKey,
    cardVault,
    storedCards,
    ...paymentHooks,
  };
  const payments = new PaymentService(paymentDeps);
  // The simulated DS delivers RReqs to Kassa's results handler in process, as a real DS POSTs them.
  const threeDSSimulator = directoryServer instanceof SimulatorDirectoryServer ? directoryServer : undefined;
  threeDSSimulator?.setResultsHandler((rreq) => payments.handleResultsRequest(rreq));
  const followUpDeps = {
    store,
    clock,
    ids,
    acquirer,
    publicUrl: config.publicUrl,
    onUnknownOutcome: hooks.onUnknownOutcome,
  };
  const followUps = new FollowUpService(followUpDeps);
  return {
    threeDSSimulator,
    merchants: new MerchantService(store, clock, ids, onCredentialsChanged),
    notifications: new NotificationService(store, clock),
    idempotency: new IdempotencyService(store, clock),
    surcharge: new SurchargeSettingsService(store, clock),
    hosted: new HostedPaymentService(paymentDeps, cardTesting.velocity, cardTesting.onRefused),
    followUps,
    followUpRecovery: new FollowUpRecovery(followUpDeps, followUps, overrides.followUpRecovery),
    authorizationRecovery: new AuthorizationRecovery(paymentDeps, overrides.authorizationRecovery),
    payments,
    storedCards,
  };
}
