import { type Config, loadConfig } from '../../src/config/config.js';
import type { Merchant } from '../../src/domain/merchants/merchant.js';
import type { PaymentServiceDeps } from '../../src/domain/payments/payment-deps.js';
import { buildServices, type ServiceOverrides, type Services } from '../../src/services.js';
import { migrateToLatest } from '../../src/storage/create-db.js';
import { KyselyStore } from '../../src/storage/kysely-store.js';
import { WebhookSecretBox } from '../../src/storage/webhook-secret-box.js';
import { type FreshDatabase, freshDatabase } from './dialects.js';

/** The data key of the service-level tests. */
export const SERVICE_TEST_DATA_KEY = 'test-data-key-test-data-key-test-data-key-0123';

/** Kassa's domain services over a fresh, migrated database of one dialect, with one sandbox DK merchant; no HTTP. */
export interface ServiceHarness {
  database: FreshDatabase;
  config: Config;
  services: Services;
  /** A store over the same database, for reading rows behind the services' back. */
  store: KyselyStore;
  merchant: Merchant;
  close(): Promise<void>;
}

/**
 * Builds the services with buildServices (services.ts), as the server and the CLI do (Medusa-style service tests).
 * `overrides(config, database)` brings the clock, acquirer and other adapters of the test; `hooks` the payment
 * callbacks.
 */
export async function startServiceHarness(
  dialect: 'sqlite' | 'postgres',
  options: {
    merchantId: string;
    webhookUrl?: string;
    overrides?: (config: Config, database: FreshDatabase) => ServiceOverrides;
    hooks?: Pick<PaymentServiceDeps, 'onPaymentFinal' | 'onUnexpectedError'>;
  },
): Promise<ServiceHarness> {
  const database = await freshDatabase(dialect);
  await migrateToLatest(database.db);
  const config = loadConfig({
    KASSA_PUBLIC_URL: 'https://kassa.test',
    KASSA_DATA_KEY: SERVICE_TEST_DATA_KEY,
    KASSA_DATA_DIR: '/nonexistent',
  });
  const services = buildServices(
    config,
    database.db,
    { tokenSecret: 'test-token-secret-test-token-secret-0123456789', dataKey: SERVICE_TEST_DATA_KEY },
    options.overrides?.(config, database) ?? {},
    options.hooks ?? {},
  );
  const { merchant } = await services.merchants.createMerchant({
    merchantId: options.merchantId,
    country: 'DK',
    currency: 'DKK',
    sandbox: true,
    ...(options.webhookUrl !== undefined && { webhookUrl: options.webhookUrl }),
  });
  return {
    database,
    config,
    services,
    store: new KyselyStore(database.db.kysely, new WebhookSecretBox(SERVICE_TEST_DATA_KEY)),
    merchant,
    async close() {
      services.threeDSSimulator?.stop();
      await database.drop();
    },
  };
}
