import { hash } from 'node:crypto';
import type { Merchant } from '../../domain/merchants/merchant.js';
import type { MerchantService } from '../../domain/merchants/merchant-service.js';

/** Entries kept at most; past that the cache starts over (a bound, not an eviction policy: merchants are few). */
export const CREDENTIAL_CACHE_MAX_ENTRIES = 10_000;

interface Entry {
  merchant: Merchant;
  /** The credentials epoch read before the entry was looked up: the entry is good while the epoch is unchanged. */
  epoch: number;
}

/**
 * Successful merchant authentications kept in memory (issue 12: no database lookup of the API key and the merchant
 * per request), with revocation still effective at once on every node: each request reads the credentials epoch
 * (one tiny read; `readEpoch`), which every change to an API key or a merchant row bumps (database triggers, migration
 * 2026-11-23-0101), and an entry serves only while the epoch it was read under is the current one. The epoch is read
 * before the lookup, so a change committed during a lookup leaves an entry that the next request already refuses.
 * Failures are never cached: each failed attempt is checked against the database, as before.
 */
export class CredentialCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly merchants: Pick<MerchantService, 'authenticateApiKey' | 'findByActiveKey'>,
    private readonly readEpoch: () => Promise<number>,
    private readonly maxEntries = CREDENTIAL_CACHE_MAX_ENTRIES,
  ) {}

  /**
   * HTTP Basic (spec §5.1): the merchant whose unrevoked API key this is; undefined for every failure alike.
   * @param epoch the credentials epoch when the caller read it already, in this request, before this call
   *   (AuthFailureLimit.precheck reads it with the failure count); else it is read here.
   */
  byApiKey(merchantId: string, apiKey: string, epoch?: number): Promise<Merchant | undefined> {
    // Keyed by the key's SHA-256, never the key itself (crypto.hash: one call, a third of createHash's time).
    const id = `basic ${merchantId} ${hash('sha256', apiKey, 'hex')}`;
    return this.lookup(id, async () => (await this.merchants.authenticateApiKey(merchantId, apiKey))?.merchant, epoch);
  }

  /** An access token's credential (spec §5.2): the merchant, while the key that obtained the token is not revoked. */
  byKeyId(merchantId: string, keyId: string): Promise<Merchant | undefined> {
    return this.lookup(`bearer ${merchantId} ${keyId}`, () => this.merchants.findByActiveKey(merchantId, keyId));
  }

  private async lookup(
    id: string,
    load: () => Promise<Merchant | undefined>,
    epochRead?: number,
  ): Promise<Merchant | undefined> {
    const epoch = epochRead ?? (await this.readEpoch());
    const entry = this.entries.get(id);
    if (entry !== undefined && entry.epoch === epoch) return entry.merchant;
    const merchant = await load();
    if (merchant === undefined) {
      this.entries.delete(id);
      return undefined;
    }
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(id, { merchant, epoch });
    return merchant;
  }
}
