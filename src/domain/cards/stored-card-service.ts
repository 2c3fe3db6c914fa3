import { KassaError } from '../errors/error-catalogue.js';
import { cardFingerprint } from '../payments/card-checks.js';
import type { CardInput } from '../payments/payment-request.js';
import type { Clock } from '../ports/clock.js';
import type { CardKeyManagement, CardKeyStatus, StoredCard, StoredCardVault } from '../ports/stored-card-vault.js';
import type { CredentialOnFile } from './credential-on-file.js';
import { pseudoCardNumber, pseudoCardNumberKey } from './pseudo-card-number.js';

/**
 * How long a superseded card key stays usable after a rotation before it may be retired (once nothing uses it):
 * longer than any write that read the active key just before the rotation can take.
 */
export const KEY_RETIREMENT_GRACE_MS = 10 * 60_000; // 10 min

/** Rows re-encrypted per batch by the key sweep: small, so payments never wait behind it. */
export const REENCRYPT_BATCH = 200;

/** The result of looking up a stored card for a payment. */
export type StoredCardLookup =
  | { kind: 'ACTIVE'; stored: StoredCard; card: CardInput }
  | { kind: 'DELETED'; stored: StoredCard }
  | { kind: 'UNKNOWN' };

export interface StoredCardServiceDeps {
  vault: StoredCardVault;
  keys: CardKeyManagement;
  clock: Clock;
  /** The deployment's data key: derives the pseudo card number key and keys the card fingerprints. */
  dataKey: string;
}

/**
 * Stored credentials (issue 13, spec/paygate-v2-wire.md §2 `credentialOnFile`, §4 `pseudoCardNumber`): stores a
 * card after a successful initial payment, finds it again by (merchant, pseudo card number), deletes it, and runs
 * the vault's key rotation (PCI DSS 3.6).
 */
export class StoredCardService {
  readonly #tokenKey: Buffer;

  constructor(private readonly deps: StoredCardServiceDeps) {
    this.#tokenKey = pseudoCardNumberKey(deps.dataKey);
  }

  /** The pseudo card number `pan` has (or would have) at `merchantId`. */
  pseudoCardNumberOf(merchantId: string, pan: string): string {
    return pseudoCardNumber(this.#tokenKey, merchantId, pan);
  }

  /**
   * Stores the card of a successful initial payment (or refreshes it when the merchant has it already).
   * @param card the card as the cardholder gave it; the security code is dropped, never stored.
   */
  async store(input: {
    merchantId: string;
    card: CardInput;
    brand: string;
    /** 6 or 8 digits, as the payment's card summary. */
    bin: string;
    credentialOnFile: CredentialOnFile;
    schemeReferenceId?: string;
    initialPayId: string;
  }): Promise<StoredCard> {
    const { number, expiryDate, cardholderName } = input.card;
    return this.deps.vault.save(
      {
        merchantId: input.merchantId,
        pseudoCardNumber: this.pseudoCardNumberOf(input.merchantId, number),
        fingerprint: cardFingerprint(number, this.deps.dataKey),
        brand: input.brand,
        bin: input.bin,
        last4: number.slice(-4),
        expiryDate,
        ...(cardholderName !== undefined && { cardholderName }),
        credentialType: input.credentialOnFile.type,
        ...(input.schemeReferenceId !== undefined && { schemeReferenceId: input.schemeReferenceId }),
        initialPayId: input.initialPayId,
        card: { number, expiryDate, ...(cardholderName !== undefined && { cardholderName }) },
      },
      this.deps.clock.now(),
    );
  }

  /** The stored card behind a pseudo card number, for a payment of `merchantId`. */
  async lookup(merchantId: string, pseudo: string): Promise<StoredCardLookup> {
    const stored = await this.deps.vault.find(merchantId, pseudo);
    if (stored === undefined) return { kind: 'UNKNOWN' };
    if (stored.status === 'DELETED') return { kind: 'DELETED', stored };
    const card = await this.deps.vault.reveal(merchantId, pseudo);
    // Active but not decryptable (a key erased by hand, a tampered row): unusable, as good as deleted.
    return card === undefined ? { kind: 'DELETED', stored } : { kind: 'ACTIVE', stored, card };
  }

  /** The stored card's record, without its number. @throws KassaError STORED_CARD_NOT_FOUND. */
  async get(merchantId: string, pseudo: string): Promise<StoredCard> {
    const stored = await this.deps.vault.find(merchantId, pseudo);
    if (stored === undefined) throw new KassaError('STORED_CARD_NOT_FOUND');
    return stored;
  }

  /**
   * Deletes a stored card (the merchant's `DELETE /cards/{pseudoCardNumber}` or the support desk's CLI): its
   * encrypted number is erased at once; later payments with it fail with 20050002.
   * Deleting a card that is already deleted succeeds again (DELETE is idempotent, RFC 9110 §9.2.2).
   * @throws KassaError STORED_CARD_NOT_FOUND when this merchant has no such card (another merchant's is "no such").
   */
  async delete(merchantId: string, pseudo: string): Promise<StoredCard> {
    const stored = await this.deps.vault.find(merchantId, pseudo);
    if (stored === undefined) throw new KassaError('STORED_CARD_NOT_FOUND');
    await this.deps.vault.delete(merchantId, pseudo, this.deps.clock.now());
    return (await this.deps.vault.find(merchantId, pseudo)) ?? stored;
  }

  /**
   * `kassa keys rotate`: adds a data-encryption key (active at once), then re-encrypts everything under older keys
   * in batches while the gateway keeps serving, then retires keys unused for longer than the grace period.
   * @returns the new key's id, how many rows moved, and which keys were retired.
   */
  async rotateKeys(onProgress?: (moved: number) => void): Promise<{ keyId: number; moved: number; retired: number[] }> {
    const keyId = await this.deps.keys.rotate(this.deps.clock.now());
    let moved = 0;
    for (;;) {
      const n = await this.deps.keys.reencrypt(REENCRYPT_BATCH, this.deps.clock.now());
      if (n === 0) break;
      moved += n;
      onProgress?.(moved);
    }
    const retired = await this.deps.keys.retireUnused(this.deps.clock.now(), KEY_RETIREMENT_GRACE_MS);
    return { keyId, moved, retired };
  }

  /**
   * The background sweep every node runs: one batch of re-encryption under the active key (finishing a rotation
   * whose CLI run stopped early), then retirement of superseded, unused keys. @returns rows moved and keys retired.
   */
  async maintainKeys(): Promise<{ moved: number; retired: number[] }> {
    const moved = await this.deps.keys.reencrypt(REENCRYPT_BATCH, this.deps.clock.now());
    const retired = await this.deps.keys.retireUnused(this.deps.clock.now(), KEY_RETIREMENT_GRACE_MS);
    return { moved, retired };
  }

  /** Retires superseded, unused keys now. */
  retireKeys(): Promise<number[]> {
    return this.deps.keys.retireUnused(this.deps.clock.now(), KEY_RETIREMENT_GRACE_MS);
  }

  /** Every key with its usage. */
  keyStatus(): Promise<CardKeyStatus[]> {
    return this.deps.keys.status();
  }
}
