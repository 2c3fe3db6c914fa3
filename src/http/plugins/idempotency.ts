import { createHmac, hkdfSync } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdempotencyService } from '../../domain/idempotency/idempotency.js';
import { cardFingerprint } from '../../domain/payments/card-checks.js';
import { merchantOf } from '../auth/authenticate.js';

/**
 * The canonical form of a request for Idempotency-Key comparison (DESIGN.md §4): method, URI and the JSON body with
 * object members sorted by name at every depth. A card number becomes Kassa's keyed card fingerprint (the one the
 * card summary stores, HMAC-SHA256 under the data key) and the security code is left out entirely, so that nothing
 * derived from the sensitive authentication data is ever stored (PCI DSS 3.3.1.2, 3.5.1).
 */
export function canonicalRequest(method: string, uri: string, body: unknown, dataKey: string): string {
  return `${method} ${uri}\n${JSON.stringify(canonicalValue(body ?? null, dataKey, []))}`;
}

function canonicalValue(value: unknown, dataKey: string, path: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => canonicalValue(item, dataKey, path));
  if (value === null || typeof value !== 'object') return value;
  const inCard = path.at(-1) === 'card';
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[name];
    if (inCard && name === 'securityCode') continue;
    if (inCard && name === 'number' && typeof member === 'string') {
      out.numberFingerprint = cardFingerprint(member, dataKey);
      continue;
    }
    out[name] = canonicalValue(member, dataKey, [...path, name]);
  }
  return out;
}

/**
 * Idempotency-Key handling for the merchant API's POST routes (IETF draft-ietf-httpapi-idempotency-key-header): a
 * stored request is keyed by the authenticated merchant, the key and the URI (method and path), and compared by a
 * keyed HMAC-SHA256 of its canonical form ({@link canonicalRequest}). Neither the key row nor the fingerprint can
 * confirm a guessed card number or CVC without the data key, and no fingerprint depends on the CVC at all.
 */
export class IdempotentReplies {
  private readonly fingerprintKey: Buffer;

  constructor(
    private readonly service: IdempotencyService,
    private readonly dataKey: string,
  ) {
    this.fingerprintKey = Buffer.from(hkdfSync('sha256', dataKey, '', 'kassa idempotency fingerprint v1', 32));
  }

  /** HMAC-SHA256 (hex, 64 characters) of the canonical request. */
  fingerprint(method: string, uri: string, body: unknown): string {
    return createHmac('sha256', this.fingerprintKey)
      .update(canonicalRequest(method, uri, body, this.dataKey))
      .digest('hex');
  }

  /** The stored key: HMAC-SHA256 (hex) of method, URI and the client's key, so one key per URI. */
  storageKey(method: string, uri: string, key: string): string {
    return createHmac('sha256', this.fingerprintKey).update(`${method} ${uri}\n${key}`).digest('hex');
  }

  /**
   * Runs a POST handler under the request's Idempotency-Key, when it has one, and sends the answer. Replays carry
   * `idempotent-replayed: true`. Throws what `work` throws, and IDEMPOTENCY_KEY_REUSED (422) or
   * IDEMPOTENCY_KEY_IN_USE (409) from {@link IdempotencyService.run}.
   */
  async send(
    request: FastifyRequest,
    reply: FastifyReply,
    work: () => Promise<{ status: number; body: unknown }>,
  ): Promise<FastifyReply> {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string') {
      const r = await work();
      return reply.status(r.status).send(r.body);
    }
    const merchant = merchantOf(request);
    // The concrete URL (with its payId), so that one key cannot replay an answer for another payment.
    const uri = request.url;
    const result = await this.service.run(
      merchant.merchantId,
      this.storageKey(request.method, uri, key),
      this.fingerprint(request.method, uri, request.body),
      async () => {
        const r = await work();
        return { status: r.status, body: JSON.stringify(r.body) };
      },
    );
    if (result.replayed) reply.header('idempotent-replayed', 'true');
    return reply.status(result.status).type('application/json').send(result.body);
  }
}
