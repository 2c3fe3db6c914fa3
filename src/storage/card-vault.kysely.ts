import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { CardInput } from '../domain/payments/payment-request.js';
import type { CardVault } from '../domain/ports/card-vault.js';
import type { Database, PendingCardTable } from './database.js';
import { toDbTime } from './rows.js';

/** Row of `pending_card` (migration 2026-11-21-0004): the card, AES-256-GCM encrypted. Base64 text columns. */

type Db = Kysely<Database>;

const KEY_VERSION = 'v1';

/**
 * The CardVault port over Kysely: one `pending_card` row per payment holding the card as AES-256-GCM ciphertext
 * (NIST SP 800-38D) under a 256-bit key derived with HKDF-SHA256 (RFC 5869) from the data key, with the payId as
 * additional authenticated data, so a row copied to another payment does not decrypt. The PAN, expiry and CVC are
 * never written in clear and never logged.
 */
export class KyselyCardVault implements CardVault {
  readonly #db: Db;
  readonly #key: Buffer;

  /** @param dataKey the deployment's data key (KASSA_DATA_KEY or the generated one). */
  constructor(db: Kysely<Database>, dataKey: string) {
    this.#db = db;
    this.#key = Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), `kassa/card-vault/${KEY_VERSION}`, 32));
  }

  async put(payId: string, card: CardInput, expiresAt: Date): Promise<void> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(payId, 'utf8'));
    const plain = JSON.stringify({
      number: card.number,
      expiryDate: card.expiryDate,
      ...(card.securityCode !== undefined && { securityCode: card.securityCode }),
      ...(card.cardholderName !== undefined && { cardholderName: card.cardholderName }),
    });
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const row: PendingCardTable = {
      pay_id: payId,
      key_version: KEY_VERSION,
      iv: iv.toString('base64'),
      ciphertext: ciphertext.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      expires_at: toDbTime(expiresAt),
    };
    const { pay_id: _payId, ...changes } = row;
    await this.#db
      .insertInto('pending_card')
      .values(row)
      .onConflict((oc) => oc.column('pay_id').doUpdateSet(changes))
      .execute();
  }

  async take(payId: string, now: Date): Promise<CardInput | undefined> {
    const row = await this.#db.selectFrom('pending_card').selectAll().where('pay_id', '=', payId).executeTakeFirst();
    if (row === undefined || row.key_version !== KEY_VERSION || row.expires_at < toDbTime(now)) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(row.iv, 'base64'));
      decipher.setAAD(Buffer.from(payId, 'utf8'));
      decipher.setAuthTag(Buffer.from(row.tag, 'base64'));
      const plain = Buffer.concat([decipher.update(Buffer.from(row.ciphertext, 'base64')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as CardInput;
    } catch {
      // Wrong key (rotated data key) or tampered row: as if absent; never log the content.
      return undefined;
    }
  }

  async delete(payId: string): Promise<void> {
    await this.#db.deleteFrom('pending_card').where('pay_id', '=', payId).execute();
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.#db.deleteFrom('pending_card').where('expires_at', '<', toDbTime(now)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
