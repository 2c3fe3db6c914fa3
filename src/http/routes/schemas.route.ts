import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import { FollowUpResponse } from '../../contracts/follow-up.js';
import { PaymentDetails } from '../../contracts/payment-details.js';
import { authenticationResponseSchema } from '../../domain/threeds/authentication-response.schema.js';

/** Media type of a JSON Schema document (draft 2020-12, §14.2 of the core spec). */
export const SCHEMA_JSON = 'application/schema+json';

/**
 * `/schemas/…`: the published JSON Schemas (spec §9.3, DESIGN.md §4; the payment details and follow-up answer generated
 * from src/contracts/), public and cacheable. The Authentication
 * Notification's `authenticationResponse` is validated against the same object before it is queued.
 */
export async function schemaRoutes(app: FastifyInstance) {
  const publish = (path: string, summary: string, schema: unknown) => {
    const body = JSON.stringify(schema, null, 2);
    const documented = {
      summary,
      tags: ['schemas'],
      security: [], // public: no credentials
      response: {
        200: {
          description: 'The JSON Schema (draft 2020-12) document',
          content: { [SCHEMA_JSON]: { schema: { type: 'object' } } },
        },
      },
    };
    app.get(path, { schema: documented }, async (_request, reply) =>
      reply.type(SCHEMA_JSON).header('cache-control', 'public, max-age=3600').send(body),
    );
  };
  publish(
    '/schemas/authentication-response.json',
    'JSON Schema of authenticationResponse (spec §2.1)',
    authenticationResponseSchema,
  );
  publish(
    '/schemas/payment-details.json',
    'JSON Schema of the payment details (paygate-v2-wire.md §4)',
    draft(PaymentDetails),
  );
  publish(
    '/schemas/follow-up-response.json',
    'JSON Schema of a follow-up answer (paygate-v2-wire.md §3)',
    draft(FollowUpResponse),
  );
}

/** A contract schema (src/contracts/) as a stand-alone JSON Schema 2020-12 document. */
function draft(schema: TSchema): Record<string, unknown> {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...JSON.parse(JSON.stringify(schema)) };
}
