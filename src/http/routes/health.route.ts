import type { FastifyInstance } from 'fastify';

/** What readiness needs to know: a cheap round trip to the database, and its dialect name for the answer. */
export interface ReadinessProbe {
  dialect: string;
  /** Resolves when the database answers; rejects otherwise. */
  ping(): Promise<void>;
}

/** `/healthz` (process alive) and `/readyz` (database answers). */
export async function healthRoutes(app: FastifyInstance, opts: { readiness: ReadinessProbe }) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await opts.readiness.ping();
      return { status: 'ok', database: opts.readiness.dialect };
    } catch {
      return reply.status(503).send({ status: 'unavailable', database: opts.readiness.dialect });
    }
  });
}
