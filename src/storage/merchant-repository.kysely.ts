import type { Kysely, Selectable } from 'kysely';
import type { Merchant } from '../domain/merchants/merchant.js';
import type { MerchantRepository } from '../domain/ports/store.js';
import { isUniqueViolation } from './create-db.js';
import type { Database, MerchantTable } from './database.js';
import { fromDbTime, optional, toDbTime } from './rows.js';
import type { WebhookSecretBox } from './webhook-secret-box.js';

/** A merchant row as the domain's Merchant, its webhook secrets opened with `secrets`. */
export function merchantRowToMerchant(row: Selectable<MerchantTable>, secrets: WebhookSecretBox): Merchant {
  const previous = previousWebhookSecret(row, secrets);
  return {
    merchantId: row.merchant_id,
    name: row.name,
    country: row.country,
    currency: row.currency,
    sandbox: row.sandbox === 1,
    webhookUrl: optional(row.webhook_url),
    webhookSecret: secrets.open(row.merchant_id, row.webhook_secret),
    ...(previous && { previousWebhookSecret: previous }),
    creationDate: fromDbTime(row.created_at),
  };
}

/**
 * The previous webhook secret of a merchant row, opened, with the end of its rotation overlap; undefined when there is
 * none, or (given `now`) when its overlap ended at or before `now`.
 */
export function previousWebhookSecret(
  row: Pick<MerchantTable, 'merchant_id' | 'previous_webhook_secret' | 'previous_webhook_secret_expires_at'>,
  secrets: WebhookSecretBox,
  now?: Date,
): { secret: string; expiresAt: Date } | undefined {
  if (row.previous_webhook_secret === null || row.previous_webhook_secret_expires_at === null) return undefined;
  const expiresAt = fromDbTime(row.previous_webhook_secret_expires_at);
  if (now && expiresAt.getTime() <= now.getTime()) return undefined;
  return { secret: secrets.open(row.merchant_id, row.previous_webhook_secret), expiresAt };
}

export class KyselyMerchantRepository implements MerchantRepository {
  /** `secrets` seals the webhook secret on insert and opens it on reads (issue 9, defect 4). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly secrets: WebhookSecretBox,
  ) {}

  async insert(m: Merchant): Promise<boolean> {
    try {
      await this.db
        .insertInto('merchant')
        .values({
          merchant_id: m.merchantId,
          name: m.name,
          country: m.country,
          currency: m.currency,
          sandbox: m.sandbox ? 1 : 0,
          webhook_url: m.webhookUrl ?? null,
          webhook_secret: this.secrets.seal(m.merchantId, m.webhookSecret),
          previous_webhook_secret: null,
          previous_webhook_secret_expires_at: null,
          surcharge: null,
          created_at: toDbTime(m.creationDate),
        })
        .execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async find(merchantId: string): Promise<Merchant | undefined> {
    const row = await this.db
      .selectFrom('merchant')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .executeTakeFirst();
    return row && merchantRowToMerchant(row, this.secrets);
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('merchant')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async setWebhookUrl(merchantId: string, url: string | undefined): Promise<boolean> {
    const r = await this.db
      .updateTable('merchant')
      .set({ webhook_url: url ?? null })
      .where('merchant_id', '=', merchantId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async rotateWebhookSecret(merchantId: string, secret: string, previousExpiresAt: Date | undefined): Promise<boolean> {
    // The SET expressions read the row as it was (SQL, PostgreSQL and SQLite alike): the secret in force moves to
    // `previous_webhook_secret` still sealed (the merchantId, its additional data, is the same) in the same statement.
    const r = await this.db
      .updateTable('merchant')
      .set((eb) => ({
        previous_webhook_secret: previousExpiresAt ? eb.ref('webhook_secret') : null,
        previous_webhook_secret_expires_at: previousExpiresAt ? toDbTime(previousExpiresAt) : null,
        webhook_secret: this.secrets.seal(merchantId, secret),
      }))
      .where('merchant_id', '=', merchantId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }
}
