import type { Kysely } from 'kysely';
import type { Store } from '../domain/ports/store.js';
import { KyselyApiKeyRepository } from './api-key-repository.kysely.js';
import { KyselyPendingCardRepository } from './card-vault.kysely.js';
import { KyselyCheckoutSessionRepository } from './checkout-session-repository.kysely.js';
import type { Database } from './database.js';
import { KyselyFollowUpOperationRepository } from './follow-up-operation-repository.kysely.js';
import { KyselyIdempotencyRepository } from './idempotency-repository.kysely.js';
import { KyselyMerchantRepository } from './merchant-repository.kysely.js';
import { KyselyNotificationOutbox } from './notification-outbox.kysely.js';
import { KyselyNotificationRepository } from './notification-repository.kysely.js';
import { KyselyPaymentRepository } from './payment-repository.kysely.js';
import { KyselySurchargeSettingsRepository } from './surcharge-settings-repository.kysely.js';
import { KyselyThreeDSTransactionRepository } from './three-ds-transaction-repository.kysely.js';
import type { WebhookSecretBox } from './webhook-secret-box.js';

export interface KyselyStoreOptions {
  /** Called for every notification write that makes one due for delivery, when it is queued. */
  onNotificationDue?: () => void;
  /** The store is one transaction's: a nested `transaction` joins it. */
  inTransaction?: boolean;
}

/** The Store port over Kysely: the same repositories over the pool or over one transaction. */
export class KyselyStore implements Store {
  readonly merchants: KyselyMerchantRepository;
  readonly apiKeys: KyselyApiKeyRepository;
  readonly payments: KyselyPaymentRepository;
  readonly idempotency: KyselyIdempotencyRepository;
  readonly outbox: KyselyNotificationOutbox;
  readonly checkoutSessions: KyselyCheckoutSessionRepository;
  readonly threeDSTransactions: KyselyThreeDSTransactionRepository;
  readonly notifications: KyselyNotificationRepository;
  readonly surchargeSettings: KyselySurchargeSettingsRepository;
  readonly followUpOperations: KyselyFollowUpOperationRepository;
  readonly pendingCards: KyselyPendingCardRepository;

  /**
   * `webhookSecrets` seals and opens the merchants' webhook secrets (storage/webhook-secret-box.ts).
   * `options.onNotificationDue` is called for every notification write that makes one due for delivery (an enqueue
   * with a target URL, a requeue), when it is queued (notifications/due-notifications.ts).
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly webhookSecrets: WebhookSecretBox,
    private readonly options: KyselyStoreOptions = {},
  ) {
    this.merchants = new KyselyMerchantRepository(db, webhookSecrets);
    this.apiKeys = new KyselyApiKeyRepository(db);
    this.payments = new KyselyPaymentRepository(db);
    this.idempotency = new KyselyIdempotencyRepository(db);
    this.outbox = new KyselyNotificationOutbox(db, options.onNotificationDue);
    this.checkoutSessions = new KyselyCheckoutSessionRepository(db);
    this.threeDSTransactions = new KyselyThreeDSTransactionRepository(db);
    this.notifications = new KyselyNotificationRepository(db, webhookSecrets, options.onNotificationDue);
    this.surchargeSettings = new KyselySurchargeSettingsRepository(db);
    this.followUpOperations = new KyselyFollowUpOperationRepository(db);
    this.pendingCards = new KyselyPendingCardRepository(db);
  }

  transaction<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    // Nested calls join the outer transaction instead of opening a second one.
    if (this.options.inTransaction) return work(this);
    return this.db
      .transaction()
      .execute((trx) => work(new KyselyStore(trx, this.webhookSecrets, { ...this.options, inTransaction: true })));
  }
}
