import type { CardInput } from '../payments/payment-request.js';

/** What Kassa keeps about a stored card besides its encrypted number (never the number or the security code). */
export interface StoredCard {
  merchantId: string;
  /** 16 digits, see domain/cards/pseudo-card-number.ts. */
  pseudoCardNumber: string;
  /** HMAC-SHA256 of the PAN under the data key, hex (DESIGN.md §8): recognises the card without its number. */
  fingerprint: string;
  status: 'ACTIVE' | 'DELETED';
  brand: string;
  /** The card's BIN (6 or 8 digits) and last four digits, as the payment details show them. */
  bin: string;
  last4: string;
  /** YYYYMM. */
  expiryDate: string;
  cardholderName?: string;
  credentialType: 'RECURRING' | 'UNSCHEDULED' | 'INSTALLMENTS';
  /** The network's transaction id of the initial payment (Visa Transaction Identifier, Mastercard Trace ID). */
  schemeReferenceId?: string;
  /** The payment that stored the card. */
  initialPayId: string;
  createdAt: Date;
  updatedAt: Date;
  deletedAt?: Date;
}

/** A card to store, with its number (encrypted by the vault, never written in clear). */
export type StoredCardInput = Omit<StoredCard, 'status' | 'createdAt' | 'updatedAt' | 'deletedAt'> & {
  card: CardInput;
};

/**
 * The card vault of stored credentials (PCI DSS req. 3.5: PANs unreadable wherever stored). Implementations
 * encrypt the card (number, expiry, cardholder name; never a security code) with AES-256-GCM under the active
 * data-encryption key of the CardKeyManagement keyring and record the key's id with the row. Every lookup names
 * the merchant: another merchant's pseudo card number finds nothing.
 */
export interface StoredCardVault {
  /**
   * Stores the card, or — when this merchant already has it (same pseudo card number) — refreshes expiry, name,
   * schemeReferenceId and encryption and makes a deleted card active again.
   */
  save(input: StoredCardInput, now: Date): Promise<StoredCard>;
  /** The stored card's record (ACTIVE or DELETED), without its number. */
  find(merchantId: string, pseudoCardNumber: string): Promise<StoredCard | undefined>;
  /**
   * The card data of an ACTIVE stored card, decrypted, for an authorization.
   * @returns undefined when absent, deleted or not decryptable (erased key, tampered row).
   */
  reveal(merchantId: string, pseudoCardNumber: string): Promise<CardInput | undefined>;
  /** Deletes the card: erases the ciphertext, keeps the record as DELETED. @returns false when absent or deleted. */
  delete(merchantId: string, pseudoCardNumber: string, now: Date): Promise<boolean>;
}

/** One data-encryption key of the vault and what it still protects. */
export interface CardKeyStatus {
  keyId: number;
  createdAt: Date;
  /** Set once the key was retired: its material is erased and nothing is encrypted under it any more. */
  retiredAt?: Date;
  /** The key new data is encrypted under (the newest key). */
  active: boolean;
  /** Stored cards (pseudo card numbers) encrypted under it. */
  storedCards: number;
  /**
   * Cards of payments in progress encrypted under it (`pending_card`: between 3-D Secure steps, from a hosted card
   * step to the payment's end, from an initial stored-credential payment's intent to its result).
   */
  pendingCards: number;
}

/**
 * Key management of the card vault (PCI DSS req. 3.6: cryptoperiods, retirement and replacement of keys).
 * `rotate` adds a key that becomes the active one at once (every node reads the active key per write);
 * `reencrypt` moves data from older keys to the active one in small batches while payments go on; `retire`
 * erases a superseded key once nothing is encrypted under it and it has been superseded for longer than `graceMs`
 * (so no node still writing with it, having read it just before the rotation, can be cut off).
 */
export interface CardKeyManagement {
  /** Adds a new data-encryption key and makes it active. @returns its id. */
  rotate(now: Date): Promise<number>;
  /** The active key's id, creating the first key when there is none. */
  activeKeyId(now: Date): Promise<number>;
  /** Re-encrypts at most `limit` rows (stored and 3-D Secure pending cards) under the active key. @returns how many. */
  reencrypt(limit: number, now: Date): Promise<number>;
  /** Retires every unused key superseded more than `graceMs` ago. @returns the retired keys' ids. */
  retireUnused(now: Date, graceMs: number): Promise<number[]>;
  /** Every key with its usage, oldest first. */
  status(): Promise<CardKeyStatus[]>;
}
