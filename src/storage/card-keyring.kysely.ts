import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { CardKeyManagement, CardKeyStatus } from '../domain/ports/stored-card-vault.js';
import { isUniqueViolation } from './create-db.js';
import type { Database } from './database.js';
import { fromDbTime, toDbTime } from './rows.js';

/** AES-256-GCM output, base64 text as stored. */
export interface Sealed {
  iv: string;
  ciphertext: string;
  tag: string;
}

/** Encrypts with AES-256-GCM (NIST SP 800-38D), a fresh 96-bit nonce, `aad` as additional authenticated data. */
export function seal(key: Uint8Array, plaintext: string, aad: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    iv: iv.toString('base64'),
    ciphertext: ciphertext.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
  };
}

/** Decrypts what `seal` wrote. @throws when the key, the aad or the data is wrong (GCM authentication). */
export function open(key: Uint8Array, sealed: Sealed, aad: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
}

/** `pending_card.key_version` of a row encrypted under keyring key `keyId`. */
export const pendingKeyVersion = (keyId: number): string => `k${keyId}`;

/** The key of the first `pending_card` format (before the keyring): HKDF-SHA256(dataKey, "kassa/card-vault/v1"). */
export const LEGACY_PENDING_KEY_VERSION = 'v1';

const PENDING_AAD = (payId: string) => payId;

/** AAD of a stored card: binds the ciphertext to its row (a row copied elsewhere does not decrypt). */
export const storedCardAad = (merchantId: string, pseudoCardNumber: string): string =>
  `stored_card|${merchantId}|${pseudoCardNumber}`;

/**
 * The card vault's keyring over Kysely (PCI DSS 3.5/3.6): data-encryption keys (DEKs) of 256 random bits, each
 * with an integer id, stored wrapped (AES-256-GCM) under a key-encryption key (KEK) derived with HKDF-SHA256 from
 * the data key (KASSA_DATA_KEY), so that a database dump alone decrypts nothing. The newest key is the active one:
 * new data is encrypted under it; older keys only decrypt until `reencrypt` has moved their data, and are then
 * retired — their material erased.
 * Unwrapped keys are cached in memory by id (a key's material never changes).
 */
export class KyselyCardKeyring implements CardKeyManagement {
  readonly #db: Kysely<Database>;
  readonly #kek: Buffer;
  readonly #legacyPendingKey: Buffer;
  readonly #keys = new Map<number, Buffer>();

  /** @param dataKey the deployment's data key (KASSA_DATA_KEY or the generated one). */
  constructor(db: Kysely<Database>, dataKey: string) {
    this.#db = db;
    this.#kek = Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), 'kassa/card-vault/kek/v1', 32));
    this.#legacyPendingKey = Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), 'kassa/card-vault/v1', 32));
  }

  async activeKeyId(now: Date): Promise<number> {
    const newest = await this.#newestKeyId();
    if (newest !== undefined) return newest;
    await this.#insertKey(1, now).catch((error: unknown) => {
      if (!isUniqueViolation(error)) throw error; // another node created the first key at the same moment
    });
    return (await this.#newestKeyId()) ?? 1;
  }

  async rotate(now: Date): Promise<number> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const keyId = ((await this.#newestKeyId()) ?? 0) + 1;
      try {
        await this.#insertKey(keyId, now);
        return keyId;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error; // a concurrent rotation took this id: take the next
      }
    }
    throw new Error('card key rotation: could not allocate a key id');
  }

  /** Encrypts under the active key. @returns the key id and the sealed data. */
  async encrypt(plaintext: string, aad: string, now: Date): Promise<{ keyId: number } & Sealed> {
    const keyId = await this.activeKeyId(now);
    const key = await this.key(keyId);
    if (key === undefined) throw new Error(`card key ${keyId} is not usable`);
    return { keyId, ...seal(key, plaintext, aad) };
  }

  /** Decrypts data sealed under key `keyId`. @returns undefined when the key is retired or the data does not open. */
  async decrypt(keyId: number, sealed: Sealed, aad: string): Promise<string | undefined> {
    const key = await this.key(keyId);
    if (key === undefined) return undefined;
    try {
      return open(key, sealed, aad);
    } catch {
      return undefined; // tampered row or wrong aad: as if absent; never log the content
    }
  }

  /** Decrypts a `pending_card` row of either format (keyring key `k<id>` or the legacy `v1`). */
  async decryptPending(keyVersion: string, sealed: Sealed, payId: string): Promise<string | undefined> {
    if (keyVersion === LEGACY_PENDING_KEY_VERSION) {
      try {
        return open(this.#legacyPendingKey, sealed, PENDING_AAD(payId));
      } catch {
        return undefined;
      }
    }
    const match = /^k(\d+)$/.exec(keyVersion);
    return match ? this.decrypt(Number(match[1]), sealed, PENDING_AAD(payId)) : undefined;
  }

  /** Encrypts a `pending_card` payload under the active key. */
  async encryptPending(plaintext: string, payId: string, now: Date): Promise<{ keyVersion: string } & Sealed> {
    const { keyId, ...sealed } = await this.encrypt(plaintext, PENDING_AAD(payId), now);
    return { keyVersion: pendingKeyVersion(keyId), ...sealed };
  }

  /** The unwrapped key `keyId`, or undefined when it does not exist or was retired. */
  async key(keyId: number): Promise<Buffer | undefined> {
    const cached = this.#keys.get(keyId);
    if (cached) return cached;
    const row = await this.#db.selectFrom('card_key').selectAll().where('key_id', '=', keyId).executeTakeFirst();
    if (row === undefined || row.retired_at !== null || row.wrapped_key === '') return undefined;
    const [iv = '', ciphertext = '', tag = ''] = row.wrapped_key.split('.');
    const key = Buffer.from(open(this.#kek, { iv, ciphertext, tag }, `card_key|${keyId}`), 'base64');
    this.#keys.set(keyId, key);
    return key;
  }

  async reencrypt(limit: number, now: Date): Promise<number> {
    const active = await this.activeKeyId(now);
    let moved = 0;
    const stored = await this.#db
      .selectFrom('stored_card')
      .select(['merchant_id', 'pseudo_card_number', 'key_id', 'iv', 'ciphertext', 'tag'])
      .where('key_id', '<', active)
      .limit(limit)
      .execute();
    for (const row of stored) {
      if (row.key_id === null || row.iv === null || row.ciphertext === null || row.tag === null) continue;
      const aad = storedCardAad(row.merchant_id, row.pseudo_card_number);
      const plain = await this.decrypt(row.key_id, { iv: row.iv, ciphertext: row.ciphertext, tag: row.tag }, aad);
      if (plain === undefined) continue;
      const key = await this.key(active);
      if (key === undefined) break;
      const sealed = seal(key, plain, aad);
      // Only if nobody rewrote the row meanwhile (a save or a delete wins over the sweep).
      const result = await this.#db
        .updateTable('stored_card')
        .set({ key_id: active, ...sealed })
        .where('merchant_id', '=', row.merchant_id)
        .where('pseudo_card_number', '=', row.pseudo_card_number)
        .where('key_id', '=', row.key_id)
        .where('iv', '=', row.iv)
        .executeTakeFirst();
      moved += Number(result.numUpdatedRows);
    }
    if (moved >= limit) return moved;
    const pending = await this.#db
      .selectFrom('pending_card')
      .select(['pay_id', 'key_version', 'iv', 'ciphertext', 'tag'])
      .where('key_version', '!=', pendingKeyVersion(active))
      .limit(limit - moved)
      .execute();
    for (const row of pending) {
      const plain = await this.decryptPending(row.key_version, row, row.pay_id);
      if (plain === undefined) continue;
      const { keyVersion, ...sealed } = await this.encryptPending(plain, row.pay_id, now);
      const result = await this.#db
        .updateTable('pending_card')
        .set({ key_version: keyVersion, ...sealed })
        .where('pay_id', '=', row.pay_id)
        .where('key_version', '=', row.key_version)
        .where('iv', '=', row.iv)
        .executeTakeFirst();
      moved += Number(result.numUpdatedRows);
    }
    return moved;
  }

  async retireUnused(now: Date, graceMs: number): Promise<number[]> {
    const keys = await this.#db.selectFrom('card_key').selectAll().orderBy('key_id').execute();
    const retired: number[] = [];
    for (const [i, key] of keys.entries()) {
      const successor = keys[i + 1];
      if (key.retired_at !== null || successor === undefined) continue;
      if (fromDbTime(successor.created_at).getTime() > now.getTime() - graceMs) continue;
      if ((await this.#usage(key.key_id)).total > 0) continue;
      // Erase the key material; the row stays as the record of the key's life (PCI DSS 3.6.1.4).
      await this.#db
        .updateTable('card_key')
        .set({ wrapped_key: '', retired_at: toDbTime(now) })
        .where('key_id', '=', key.key_id)
        .where('retired_at', 'is', null)
        .execute();
      this.#keys.delete(key.key_id);
      retired.push(key.key_id);
    }
    return retired;
  }

  async status(): Promise<CardKeyStatus[]> {
    const keys = await this.#db.selectFrom('card_key').selectAll().orderBy('key_id').execute();
    const newest = keys.at(-1)?.key_id;
    const out: CardKeyStatus[] = [];
    for (const key of keys) {
      const usage = await this.#usage(key.key_id);
      out.push({
        keyId: key.key_id,
        createdAt: fromDbTime(key.created_at),
        ...(key.retired_at !== null && { retiredAt: fromDbTime(key.retired_at) }),
        active: key.key_id === newest,
        storedCards: usage.stored,
        pendingCards: usage.pending,
      });
    }
    return out;
  }

  async #usage(keyId: number): Promise<{ stored: number; pending: number; total: number }> {
    const stored = await this.#db
      .selectFrom('stored_card')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key_id', '=', keyId)
      .executeTakeFirstOrThrow();
    const pending = await this.#db
      .selectFrom('pending_card')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key_version', '=', pendingKeyVersion(keyId))
      .executeTakeFirstOrThrow();
    const s = Number(stored.n);
    const p = Number(pending.n);
    return { stored: s, pending: p, total: s + p };
  }

  async #newestKeyId(): Promise<number | undefined> {
    const row = await this.#db
      .selectFrom('card_key')
      .select('key_id')
      .orderBy('key_id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.key_id;
  }

  async #insertKey(keyId: number, now: Date): Promise<void> {
    const material = randomBytes(32);
    const wrapped = seal(this.#kek, material.toString('base64'), `card_key|${keyId}`);
    await this.#db
      .insertInto('card_key')
      .values({
        key_id: keyId,
        wrapped_key: `${wrapped.iv}.${wrapped.ciphertext}.${wrapped.tag}`,
        created_at: toDbTime(now),
        retired_at: null,
      })
      .execute();
  }
}
