import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import { Type } from 'typebox';
import { type NotificationService, toNotificationDetails } from '../../domain/notifications/notification-service.js';
import { merchantOf } from '../auth/authenticate.js';
import type { IdempotentReplies } from '../plugins/idempotency.js';
import { IdempotencyHeadersSchema, ProblemResponses } from './payment.schemas.js';

export interface NotificationRoutesOptions {
  notifications: NotificationService;
  idempotency: IdempotentReplies;
  auth: preHandlerHookHandler;
}

const ListQuerySchema = Type.Object(
  { payId: Type.String({ pattern: '^[0-9a-f]{32}$', description: "Kassa's payment id" }) },
  { additionalProperties: false },
);
/** A notification with its delivery log (`toNotificationDetails`); times RFC 3339, durations in ms. */
const NotificationDetails = Type.Object({
  id: Type.String({ description: 'msg_…, the webhook-id' }),
  type: Type.String(),
  payId: Type.Optional(Type.String()),
  status: Type.Enum(['PENDING', 'DELIVERED', 'FAILED', 'NO_TARGET']),
  targetUrl: Type.Optional(Type.String()),
  attemptCount: Type.Integer(),
  nextAttemptAt: Type.Optional(Type.String({ format: 'date-time' })),
  creationDate: Type.String({ format: 'date-time' }),
  deliveredAt: Type.Optional(Type.String({ format: 'date-time' })),
  payload: Type.Object({}, { additionalProperties: true, description: 'The event body as sent' }),
  attempts: Type.Array(
    Type.Object({
      attemptNo: Type.Integer(),
      attemptedAt: Type.String({ format: 'date-time' }),
      durationMs: Type.Integer(),
      httpStatus: Type.Optional(Type.Integer()),
      error: Type.Optional(Type.String()),
    }),
  ),
});
const IdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * `/notifications`: the delivery log of a payment's notifications and manual redelivery (DESIGN.md §4, §5).
 * A merchant sees only its own: another merchant's payment or notification answers like a missing one (404).
 */
export async function notificationRoutes(fastify: FastifyInstance, opts: NotificationRoutesOptions) {
  const { notifications, idempotency, auth } = opts;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/notifications',
    {
      preHandler: auth,
      schema: {
        summary: "A payment's notifications with every delivery attempt",
        tags: ['notifications'],
        querystring: ListQuerySchema,
        response: {
          200: Type.Object(
            { notifications: Type.Array(NotificationDetails) },
            { description: 'Oldest first, each with every delivery attempt' },
          ),
          ...ProblemResponses,
        },
      },
    },
    async (request) => {
      const { payId } = request.query;
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
        response: { 202: { ...NotificationDetails, description: 'Queued again' }, ...ProblemResponses },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      return idempotency.send(request, reply, async () => ({
        status: 202,
        body: toNotificationDetails(await notifications.redeliver(merchantOf(request), id)),
      }));
    },
  );
}
