import type { CardInput } from '../payments/payment-request.js';

/**
 * Card data kept between the AReq and the final 3-D Secure result (challenge, decoupled, 3DS Method redirect), so
 * that the payment can be authorized once the RReq arrives. Implementations store it encrypted only (the Kysely
 * adapter: AES-256-GCM under a key derived with HKDF from the data key, the payId as associated data), never log
 * it, and hold it at most until `expiresAt`. Callers delete it as soon as the payment is authorized, failed or
 * expired (DESIGN.md §8: card data never in clear).
 */
export interface CardVault {
  /** Stores (or replaces) the card of a payment until `expiresAt`. */
  put(payId: string, card: CardInput, expiresAt: Date): Promise<void>;
  /**
   * Encrypts the card of a payment without storing it, for `PendingCardRepository.put` inside a store transaction
   * (the hosted card step writes the card and the payment row that names it in one transaction).
   */
  seal(payId: string, card: CardInput, expiresAt: Date): Promise<SealedCard>;
  /**
   * Reads the card of a payment without removing it (a crash between reading and authorizing must not lose it).
   * @returns undefined when absent, expired at `now`, or not decryptable with the current key.
   */
  read(payId: string, now: Date): Promise<CardInput | undefined>;
  /** Removes the card of a payment; a no-op when absent. */
  delete(payId: string): Promise<void>;
  /** Removes every card whose `expiresAt` is before `now`. @returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

/**
 * A payment's card as CardVault.seal encrypted it, ready to be stored: ciphertext and key reference only, opaque to
 * the domain (it never holds the number or CVC in clear). Valid until `expiresAt`.
 */
export interface SealedCard {
  readonly payId: string;
  readonly keyVersion: string;
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
  readonly expiresAt: Date;
}
