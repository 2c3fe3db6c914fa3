import type { Kysely } from 'kysely';
import type { CardInput } from '../domain/payments/payment-request.js';
import type { CardVault, SealedCard } from '../domain/ports/card-vault.js';
import type { PendingCardRepository } from '../domain/ports/store.js';
import type { KyselyCardKeyring } from './card-keyring.kysely.js';
import type { Database, PendingCardTable } from './database.js';
import { deferrable } from './deferrable.js';
import { shaped } from './query-shapes.js';
import { toDbTime } from './rows.js';

type Db = Kysely<Database>;

/**
 * `pending_card` rows in a store transaction (PendingCardRepository): the delete is deferrable (storage/deferrable.ts),
 * so inside the transaction that ends a payment it joins that transaction's other writes: no statement of its own on
 * PostgreSQL, no writer round trip on SQLite, and nothing written when the payment never kept a card.
 */
export class KyselyPendingCardRepository implements PendingCardRepository {
  constructor(private readonly db: Db) {}

  async delete(payId: string): Promise<void> {
    const query = shaped(this.db, 'pending_card.delete', [payId], () =>
      this.db.deleteFrom('pending_card').where('pay_id', '=', payId),
    );
    await this.db.executeQuery(deferrable(query));
  }

  async put(card: SealedCard): Promise<void> {
    const row: PendingCardTable = {
      pay_id: card.payId,
      key_version: card.keyVersion,
      iv: card.iv,
      ciphertext: card.ciphertext,
      tag: card.tag,
      expires_at: toDbTime(card.expiresAt),
    };
    const { pay_id: _payId, ...changes } = row;
    await this.db
      .insertInto('pending_card')
      .values(row)
      .onConflict((oc) => oc.column('pay_id').doUpdateSet(changes))
      .execute();
  }
}

/**
 * The CardVault port over Kysely: one `pending_card` row per payment holding the card as AES-256-GCM ciphertext
 * (NIST SP 800-38D) under the card vault keyring's active key (`key_version` `k<keyId>`; rows of the first format,
 * `v1`, under HKDF-SHA256(dataKey, "kassa/card-vault/v1"), still decrypt until the re-encryption sweep moved them),
 * with the payId as additional authenticated data, so a row copied to another payment does not decrypt. The PAN,
 * expiry and CVC are never written in clear and never logged.
 */
export class KyselyCardVault implements CardVault {
  readonly #db: Db;
  readonly #keyring: KyselyCardKeyring;
  readonly #now: () => Date;
  readonly #pending: KyselyPendingCardRepository;

  /** @param now the clock (the keyring records when it creates its first key). */
  constructor(db: Kysely<Database>, keyring: KyselyCardKeyring, now: () => Date = () => new Date()) {
    this.#db = db;
    this.#keyring = keyring;
    this.#now = now;
    this.#pending = new KyselyPendingCardRepository(db);
  }

  async put(payId: string, card: CardInput, expiresAt: Date): Promise<void> {
    await this.#pending.put(await this.seal(payId, card, expiresAt));
  }

  async seal(payId: string, card: CardInput, expiresAt: Date): Promise<SealedCard> {
    const plain = JSON.stringify({
      number: card.number,
      expiryDate: card.expiryDate,
      ...(card.securityCode !== undefined && { securityCode: card.securityCode }),
      ...(card.cardholderName !== undefined && { cardholderName: card.cardholderName }),
    });
    const { keyVersion, ...sealed } = await this.#keyring.encryptPending(plain, payId, this.#now());
    return { payId, keyVersion, ...sealed, expiresAt };
  }

  async read(payId: string, now: Date): Promise<CardInput | undefined> {
    const row = await this.#db.selectFrom('pending_card').selectAll().where('pay_id', '=', payId).executeTakeFirst();
    if (row === undefined || row.expires_at < toDbTime(now)) return undefined;
    // Wrong or retired key, or a tampered row: as if absent; never log the content.
    const plain = await this.#keyring.decryptPending(row.key_version, row, payId);
    return plain === undefined ? undefined : (JSON.parse(plain) as CardInput);
  }

  delete(payId: string): Promise<void> {
    return this.#pending.delete(payId);
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.#db.deleteFrom('pending_card').where('expires_at', '<', toDbTime(now)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
