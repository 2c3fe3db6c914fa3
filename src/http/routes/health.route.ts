import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../storage/create-db.js';

/** `/healthz` (process alive) and `/readyz` (database answers). */
export async function healthRoutes(app: FastifyInstance, opts: { db: Db }) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(opts.db.kysely);
      return { status: 'ok', database: opts.db.dialect };
    } catch {
      return reply.status(503).send({ status: 'unavailable', database: opts.db.dialect });
    }
  });
}
