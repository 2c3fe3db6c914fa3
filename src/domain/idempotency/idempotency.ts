import { KassaError } from '../errors/error-catalogue.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';

/** Keys are kept at least this long (DESIGN.md §4: at least 24 h). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A claim still IN_FLIGHT after this long belongs to a crashed process and may be taken over. */
export const IDEMPOTENCY_ABANDONED_MS = 5 * 60 * 1000;

/** A response as the HTTP layer stores it for replay. */
export interface StoredResponse {
  status: number;
  body: string;
}

/**
 * Runs `work` at most once per (merchant, Idempotency-Key) (IETF draft-ietf-httpapi-idempotency-key-header):
 * the same key and request replays the stored response; a different request → IDEMPOTENCY_KEY_REUSED (422);
 * the first request still running → IDEMPOTENCY_KEY_IN_USE (409). Responses with status ≥ 500 are not kept, so
 * the merchant may retry them. Concurrency safety rests on the table's primary key, not on memory.
 */
export class IdempotencyService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async run(
    merchantId: string,
    key: string,
    fingerprint: string,
    work: () => Promise<StoredResponse>,
  ): Promise<StoredResponse & { replayed: boolean }> {
    const now = this.clock.now();
    const existing = await this.store.idempotency.claim(merchantId, key, fingerprint, now);
    if (existing) {
      const age = now.getTime() - existing.creationDate.getTime();
      const stale =
        age > IDEMPOTENCY_RETENTION_MS || (existing.state === 'IN_FLIGHT' && age > IDEMPOTENCY_ABANDONED_MS);
      const olderThan = new Date(existing.creationDate.getTime() + 1);
      if (!stale || !(await this.store.idempotency.reclaimIfOlder(merchantId, key, fingerprint, olderThan, now))) {
        if (existing.requestHash !== fingerprint) throw new KassaError('IDEMPOTENCY_KEY_REUSED');
        if (existing.state === 'IN_FLIGHT') throw new KassaError('IDEMPOTENCY_KEY_IN_USE');
        return { status: existing.responseStatus ?? 200, body: existing.responseBody ?? '', replayed: true };
      }
    }
    let response: StoredResponse;
    try {
      response = await work();
    } catch (error) {
      // A request that threw changed nothing (rule violations throw before anything is written): forget the claim
      // so that the corrected or retried request may use the same key.
      await this.store.idempotency.release(merchantId, key);
      throw error;
    }
    if (response.status >= 500) await this.store.idempotency.release(merchantId, key);
    else await this.store.idempotency.complete(merchantId, key, response.status, response.body);
    return { ...response, replayed: false };
  }
}
