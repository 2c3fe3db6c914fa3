import type { Kysely } from 'kysely';
import type { CardInput } from '../domain/payments/payment-request.js';
import type { StoredCard, StoredCardInput, StoredCardVault } from '../domain/ports/stored-card-vault.js';
import type { KyselyCardKeyring } from './card-keyring.kysely.js';
import { storedCardAad } from './card-keyring.kysely.js';
import type { Database, StoredCardTable } from './database.js';
import { fromDbTime, toDbTime } from './rows.js';

type Db = Kysely<Database>;

/** What the ciphertext holds: the card data an authorization needs (never a security code). */
interface SealedCard {
  number: string;
  expiryDate: string;
  cardholderName?: string;
}

function rowToStoredCard(row: StoredCardTable, cardholderName?: string): StoredCard {
  return {
    merchantId: row.merchant_id,
    pseudoCardNumber: row.pseudo_card_number,
    fingerprint: row.fingerprint,
    status: row.status === 'DELETED' ? 'DELETED' : 'ACTIVE',
    brand: row.brand,
    bin: row.bin,
    last4: row.last4,
    expiryDate: row.expiry_date,
    ...(cardholderName !== undefined && { cardholderName }),
    credentialType: row.credential_type as StoredCard['credentialType'],
    ...(row.scheme_reference_id !== null && { schemeReferenceId: row.scheme_reference_id }),
    initialPayId: row.initial_pay_id,
    createdAt: fromDbTime(row.created_at),
    updatedAt: fromDbTime(row.updated_at),
    ...(row.deleted_at !== null && { deletedAt: fromDbTime(row.deleted_at) }),
  };
}

/**
 * The StoredCardVault port over Kysely: one `stored_card` row per (merchant, pseudo card number), the card
 * AES-256-GCM encrypted under the keyring's active key (its id in `key_id`), the row's identity as additional
 * authenticated data. The cardholder name lives inside the ciphertext too (PCI DSS: cardholder data).
 */
export class KyselyStoredCardVault implements StoredCardVault {
  constructor(
    private readonly db: Db,
    private readonly keyring: KyselyCardKeyring,
  ) {}

  async save(input: StoredCardInput, now: Date): Promise<StoredCard> {
    const payload: SealedCard = {
      number: input.card.number,
      expiryDate: input.card.expiryDate,
      ...(input.card.cardholderName !== undefined && { cardholderName: input.card.cardholderName }),
    };
    const { keyId, ...sealed } = await this.keyring.encrypt(
      JSON.stringify(payload),
      storedCardAad(input.merchantId, input.pseudoCardNumber),
      now,
    );
    const row: StoredCardTable = {
      merchant_id: input.merchantId,
      pseudo_card_number: input.pseudoCardNumber,
      fingerprint: input.fingerprint,
      status: 'ACTIVE',
      key_id: keyId,
      ...sealed,
      brand: input.brand,
      bin: input.bin,
      last4: input.last4,
      expiry_date: input.expiryDate,
      credential_type: input.credentialType,
      scheme_reference_id: input.schemeReferenceId ?? null,
      initial_pay_id: input.initialPayId,
      created_at: toDbTime(now),
      updated_at: toDbTime(now),
      deleted_at: null,
    };
    const { merchant_id: _m, pseudo_card_number: _p, created_at: _c, ...changes } = row;
    await this.db
      .insertInto('stored_card')
      .values(row)
      .onConflict((oc) => oc.columns(['merchant_id', 'pseudo_card_number']).doUpdateSet(changes))
      .execute();
    const stored = await this.find(input.merchantId, input.pseudoCardNumber);
    if (stored === undefined) throw new Error('stored card vanished after saving');
    return { ...stored, ...(input.card.cardholderName !== undefined && { cardholderName: input.card.cardholderName }) };
  }

  async find(merchantId: string, pseudoCardNumber: string): Promise<StoredCard | undefined> {
    const row = await this.#row(merchantId, pseudoCardNumber);
    return row && rowToStoredCard(row);
  }

  async reveal(merchantId: string, pseudoCardNumber: string): Promise<CardInput | undefined> {
    const row = await this.#row(merchantId, pseudoCardNumber);
    if (row === undefined || row.status !== 'ACTIVE') return undefined;
    if (row.key_id === null || row.iv === null || row.ciphertext === null || row.tag === null) return undefined;
    const plain = await this.keyring.decrypt(
      row.key_id,
      { iv: row.iv, ciphertext: row.ciphertext, tag: row.tag },
      storedCardAad(merchantId, pseudoCardNumber),
    );
    if (plain === undefined) return undefined;
    const card = JSON.parse(plain) as SealedCard;
    return {
      number: card.number,
      expiryDate: card.expiryDate,
      ...(card.cardholderName !== undefined && { cardholderName: card.cardholderName }),
    };
  }

  async delete(merchantId: string, pseudoCardNumber: string, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('stored_card')
      .set({
        status: 'DELETED',
        key_id: null,
        iv: null,
        ciphertext: null,
        tag: null,
        deleted_at: toDbTime(now),
        updated_at: toDbTime(now),
      })
      .where('merchant_id', '=', merchantId)
      .where('pseudo_card_number', '=', pseudoCardNumber)
      .where('status', '=', 'ACTIVE')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  #row(merchantId: string, pseudoCardNumber: string): Promise<StoredCardTable | undefined> {
    return this.db
      .selectFrom('stored_card')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('pseudo_card_number', '=', pseudoCardNumber)
      .executeTakeFirst();
  }
}
