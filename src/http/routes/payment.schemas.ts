import { Type } from 'typebox';
import { type DocumentedHeader, ref } from './shared-schemas.js';

/** Path and header schemas shared by the merchant API routes; bodies and answers are in `src/contracts/`. */

export const PayIdParamsSchema = Type.Object({ payID: Type.String({ minLength: 1, maxLength: 64 }) });
export const TransIdParamsSchema = Type.Object({ transID: Type.String({ minLength: 1, maxLength: 64 }) });

export const IdempotencyHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'IETF draft-ietf-httpapi-idempotency-key-header, kept 24 h per merchant and resource: the same key and body ' +
        'replays the first 2xx answer with the header `idempotent-replayed: true`; another body is 422 ' +
        '`IDEMPOTENCY_KEY_REUSED`; while the first request runs, 409 `IDEMPOTENCY_KEY_IN_USE`. A 4xx or 5xx answer ' +
        'frees the key.',
    }),
  ),
});

/** The problem+json answers every authenticated merchant route can give (4xx, and the generic 5xx). */
export const ProblemResponses = {
  '4xx': {
    description:
      'problem+json naming the code and, for 400, each refused field; 401 carries `WWW-Authenticate`, 429 and 503 ' +
      "`Retry-After`; every answer carries `x-request-id` (the body's `requestId`)",
    content: { 'application/problem+json': { schema: ref('Problem') } },
  },
  '5xx': {
    description: 'problem+json; the cause stays in the log under requestId',
    content: { 'application/problem+json': { schema: ref('Problem') } },
  },
};

/** The headers of a 201/202 answer that created something: where to read it, and whether it is a replay. */
export function createdHeaders(what: string): Record<string, DocumentedHeader> {
  return {
    location: { type: 'string', description: `the URL to read ${what} back (GET)` },
    'idempotent-replayed': {
      type: 'string',
      description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key and body',
    },
    'x-request-id': { type: 'string', description: "the request's id, as the log and any problem body name it" },
  };
}
