import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './database.js';

/** Prefix of a sealed secret; a stored value without it is a clear secret written before sealing existed. */
const SEALED_PREFIX = 'v1:';

/**
 * Seals merchants' webhook signing secrets at rest (issue 9, defect 4): AES-256-GCM under a key derived from
 * KASSA_DATA_KEY (HKDF-SHA256, info "kassa webhook secret v1"), a random 96-bit IV per secret, the merchantId as
 * additional authenticated data so a sealed secret moved to another merchant's row does not open. Stored as
 * `v1:<iv>:<ciphertext+tag>` (base64url), about 110 characters for a `whsec_` secret. Anyone with the database but
 * without the data key cannot sign notifications as Kassa.
 */
export class WebhookSecretBox {
  private readonly key: Buffer;

  constructor(dataKey: string) {
    this.key = Buffer.from(hkdfSync('sha256', dataKey, '', 'kassa webhook secret v1', 32));
  }

  /** The stored form of `secret` for `merchantId`. */
  seal(merchantId: string, secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(merchantId, 'utf8'));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${SEALED_PREFIX}${iv.toString('base64url')}:${sealed.toString('base64url')}`;
  }

  /**
   * The secret behind a stored value; a clear one (written before sealing existed, sealed by `sealClearSecrets` at
   * start-up) is returned as is. @throws Error when the value was sealed under another data key or merchant.
   */
  open(merchantId: string, stored: string): string {
    if (!stored.startsWith(SEALED_PREFIX)) return stored;
    const [iv, sealed] = stored.slice(SEALED_PREFIX.length).split(':');
    const data = Buffer.from(sealed ?? '', 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv ?? '', 'base64url'));
    decipher.setAAD(Buffer.from(merchantId, 'utf8'));
    decipher.setAuthTag(data.subarray(data.length - 16));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
  }

  /** Whether a stored value is sealed. */
  static isSealed(stored: string): boolean {
    return stored.startsWith(SEALED_PREFIX);
  }
}

/**
 * Seals every webhook secret still stored in clear (databases from before sealing): run at start-up after the
 * migrations, which cannot, as they do not hold the data key. Idempotent; each row is updated only while still clear.
 * @returns how many secrets it sealed.
 */
export async function sealClearWebhookSecrets(db: Kysely<Database>, box: WebhookSecretBox): Promise<number> {
  const clear = await db
    .selectFrom('merchant')
    .select(['merchant_id', 'webhook_secret'])
    .where('webhook_secret', 'not like', `${SEALED_PREFIX}%`)
    .execute();
  for (const row of clear) {
    await db
      .updateTable('merchant')
      .set({ webhook_secret: box.seal(row.merchant_id, row.webhook_secret) })
      .where('merchant_id', '=', row.merchant_id)
      .where('webhook_secret', '=', row.webhook_secret)
      .execute();
  }
  return clear.length;
}
