import type { FastifyInstance } from 'fastify';
import { authenticationResponseSchema } from '../../domain/threeds/authentication-response.schema.js';

/** Media type of a JSON Schema document (draft 2020-12, §14.2 of the core spec). */
export const SCHEMA_JSON = 'application/schema+json';

/**
 * `/schemas/…`: the published JSON Schemas (spec §9.3, DESIGN.md §4), public and cacheable. The Authentication
 * Notification's `authenticationResponse` is validated against the same object before it is queued.
 */
export async function schemaRoutes(app: FastifyInstance) {
  const body = JSON.stringify(authenticationResponseSchema, null, 2);
  app.get(
    '/schemas/authentication-response.json',
    { schema: { summary: 'JSON Schema of authenticationResponse (spec §2.1)', tags: ['schemas'] } },
    async (_request, reply) => reply.type(SCHEMA_JSON).header('cache-control', 'public, max-age=3600').send(body),
  );
}
