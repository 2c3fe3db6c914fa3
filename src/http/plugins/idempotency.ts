import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdempotencyService } from '../../domain/idempotency/idempotency.js';
import { cardFingerprint } from '../../domain/payments/card-checks.js';
import { randomPool } from '../../domain/ports/random-pool.js';
import { merchantOf } from '../auth/authenticate.js';

/**
 * The canonical form of a request for Idempotency-Key comparison (DESIGN.md §4): method, URI and the JSON body with
 * object members sorted by name at every depth. A card number (`paymentMethods.card.number`,
 * `paymentMethods.card.prefillInfo.number`) becomes Kassa's keyed card fingerprint (the one the card summary stores,
 * HMAC-SHA256 under the data key) and every `securityCode`, wherever it stands, is left out entirely, so that nothing
 * derived from the sensitive authentication data is ever stored (PCI DSS 3.3.1.2, 3.5.1).
 */
export function canonicalRequest(method: string, uri: string, body: unknown, dataKey: string): string {
  return `${method} ${uri}\n${JSON.stringify(canonicalValue(body ?? null, dataKey, []))}`;
}

function canonicalValue(value: unknown, dataKey: string, path: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => canonicalValue(item, dataKey, path));
  if (value === null || typeof value !== 'object') return value;
  const parent = path.at(-1);
  const inCard = parent === 'card' || parent === 'prefillInfo';
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[name];
    if (name === 'securityCode') continue;
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
 * confirm a guessed card number or CVC without the data key, and no fingerprint depends on the CVC at all. The stored
 * answer (payment details: card summary, customer data) is AES-256-GCM encrypted under another key derived from the
 * data key, bound to the merchant and the stored key, so the idempotency table holds nothing of the payment in clear.
 */
export class IdempotentReplies {
  private readonly fingerprintKey: Buffer;
  private readonly answerKey: Buffer;

  constructor(
    private readonly service: IdempotencyService,
    private readonly dataKey: string,
  ) {
    this.fingerprintKey = Buffer.from(hkdfSync('sha256', dataKey, '', 'kassa idempotency fingerprint v1', 32));
    this.answerKey = Buffer.from(hkdfSync('sha256', dataKey, '', 'kassa idempotency answer v1', 32));
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
   * `idempotent-replayed: true`. `locationOf`: the URL of what a 201 or 202 answer created, read from its body, sent as
   * `Location` (RFC 9110 §10.2.2) on the first answer and on every replay alike. Throws what `work` throws, and
   * IDEMPOTENCY_KEY_REUSED (422) or IDEMPOTENCY_KEY_IN_USE (409) from {@link IdempotencyService.run}.
   */
  async send<Body>(
    request: FastifyRequest,
    reply: FastifyReply,
    work: () => Promise<{ status: number; body: Body }>,
    locationOf?: (body: Body) => string,
  ): Promise<FastifyReply> {
    const locate = (status: number, body: () => Body) => {
      if (locationOf !== undefined && (status === 201 || status === 202)) reply.header('location', locationOf(body()));
    };
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string') {
      const r = await work();
      locate(r.status, () => r.body);
      return reply.status(r.status).send(r.body);
    }
    const merchant = merchantOf(request);
    const uri = idempotencyUri(request);
    const storageKey = this.storageKey(request.method, uri, key);
    const binding = `${merchant.merchantId}\n${storageKey}`;
    let first: { body: Body; text: string } | undefined;
    const result = await this.service.run(
      merchant.merchantId,
      storageKey,
      this.fingerprint(request.method, uri, request.body),
      async () => {
        const r = await work();
        first = { body: r.body, text: JSON.stringify(r.body) };
        return { status: r.status, body: sealAnswer(this.answerKey, binding, first.text) };
      },
    );
    if (result.replayed) reply.header('idempotent-replayed', 'true');
    // A replay is the first answer, links and Location included, whichever prefix it came through (idempotencyUri).
    const text = first?.text ?? openAnswer(this.answerKey, binding, result.body);
    locate(result.status, () => (first === undefined ? (JSON.parse(text) as Body) : first.body));
    return reply.status(result.status).type('application/json').send(text);
  }
}

/**
 * The URI a stored key is scoped to: the route's path under the `/api/v1` spelling, its parameters filled in (decoded),
 * so that one key cannot replay an answer for another payment, while the spellings that reach the same route are one
 * resource: `/api/v1` and `/api/v2` (paygate-v2-wire.md §1), a trailing slash, a query string, percent-encoding.
 * A retry through any of them replays the first answer instead of running the request again (DESIGN.md §4).
 */
export function idempotencyUri(request: FastifyRequest): string {
  const route = request.routeOptions.url;
  if (route === undefined) return request.url;
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  return route
    .replace(/^\/api\/v2(?=\/)/, '/api/v1')
    .replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

const ANSWER_FORMAT = 'v1';

/** AES-256-GCM (NIST SP 800-38D) with a random 96-bit IV; `binding` is associated data. Format `v1.iv.ciphertext.tag`. */
function sealAnswer(key: Buffer, binding: string, plain: string): string {
  const iv = randomPool.bytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(binding, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [ANSWER_FORMAT, iv, ciphertext, cipher.getAuthTag()]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The stored answer in clear. Throws when it does not decrypt (another data key, a tampered or erased row). */
function openAnswer(key: Buffer, binding: string, sealed: string): string {
  const [format, iv, ciphertext, tag] = sealed.split('.');
  if (format !== ANSWER_FORMAT || iv === undefined || ciphertext === undefined || tag === undefined) {
    throw new Error('stored idempotent answer is not in a known format');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(binding, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
