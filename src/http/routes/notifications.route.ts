import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import { type Static, Type } from 'typebox';
import type { IdempotencyService } from '../../domain/idempotency/idempotency.js';
import { type NotificationService, toNotificationDetails } from '../../domain/notifications/notification-service.js';
import { merchantOf } from '../auth/authenticate.js';
import { IdempotencyHeadersSchema } from './payment.schemas.js';
import { sendIdempotent } from './payments.route.js';

export interface NotificationRoutesOptions {
  notifications: NotificationService;
  idempotency: IdempotencyService;
  auth: preHandlerHookHandler;
}

const ListQuerySchema = Type.Object(
  { payId: Type.String({ pattern: '^[0-9a-f]{32}$', description: "Kassa's payment id" }) },
  { additionalProperties: false },
);
const IdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * `/notifications`: the delivery log of a payment's notifications and manual redelivery (DESIGN.md §4, §5).
 * A merchant sees only its own: another merchant's payment or notification answers like a missing one (404).
 */
export async function notificationRoutes(app: FastifyInstance, opts: NotificationRoutesOptions) {
  const { notifications, idempotency, auth } = opts;

  app.get(
    '/notifications',
    {
      preHandler: auth,
      schema: {
        summary: "A payment's notifications with every delivery attempt",
        tags: ['notifications'],
        querystring: ListQuerySchema,
      },
    },
    async (request) => {
      const { payId } = request.query as Static<typeof ListQuerySchema>;
      const list = await notifications.listByPayId(merchantOf(request).merchantId, payId);
      return { notifications: list.map(toNotificationDetails) };
    },
  );

  app.post(
    '/notifications/:id/redeliver',
    {
      preHandler: auth,
      schema: {
        summary: 'Queue a notification for delivery again, now, with a fresh retry schedule',
        tags: ['notifications'],
        params: IdParamsSchema,
        headers: IdempotencyHeadersSchema,
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParamsSchema>;
      return sendIdempotent(idempotency, request, reply, async () => ({
        status: 202,
        body: toNotificationDetails(await notifications.redeliver(merchantOf(request), id)),
      }));
    },
  );
}
