import { type Static, type TSchema, Type } from 'typebox';
import { CreatePaymentRequest, CreateSessionRequest } from '../../contracts/create-request.js';
import { PAYMENT_EVENT_TYPES, PaymentEvent } from '../../contracts/events.js';
import { CaptureRequest, FollowUpResponse, RefundRequest, ReversalRequest } from '../../contracts/follow-up.js';
import { PaymentDetails } from '../../contracts/payment-details.js';
import { Problem } from '../../contracts/problem.js';
import { SessionResponse } from '../../contracts/session.js';

/**
 * The contract schemas the routes share, registered once with `app.addSchema` under their names: routes refer to
 * them by `$ref`, so the validator and serializer compile each once and `openapi.json` lists each once under
 * `components.schemas` (instead of inlining the payment details in every answer of both prefixes).
 */
export const SHARED_SCHEMAS = {
  CreatePaymentRequest,
  CreateSessionRequest,
  CaptureRequest,
  RefundRequest,
  ReversalRequest,
  PaymentDetails,
  FollowUpResponse,
  SessionResponse,
  Problem,
  PaymentEvent,
} satisfies Record<string, TSchema>;

export type SharedSchemaName = keyof typeof SHARED_SCHEMAS;

/** A `$ref` to a shared schema that keeps its static type for the TypeBox type provider. */
export function ref<N extends SharedSchemaName>(name: N, description?: string) {
  return Type.Unsafe<Static<(typeof SHARED_SCHEMAS)[N]>>({
    $ref: `${name}#`,
    ...(description !== undefined && { description }),
  });
}

/** Registers every shared schema on the root instance (before the routes that refer to them). */
export function addSharedSchemas(app: { addSchema(schema: unknown): unknown }): void {
  for (const [name, schema] of Object.entries(SHARED_SCHEMAS)) app.addSchema({ ...schema, $id: name });
}

/** `postApiV2PaymentsPayIdCaptures` for `POST /api/v2/payments/:payId/captures`: unique per method and path. */
export function operationIdOf(method: string, url: string): string {
  const words = url.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0]?.toUpperCase() + w.slice(1))].join('');
}

/**
 * The notifications Kassa POSTs to the merchant as OpenAPI 3.1 `webhooks` (docs/notifications.md): one per
 * `payment.*` event type, body PaymentEvent, signed with Standard Webhooks headers; any 2xx acknowledges.
 */
export function paymentEventWebhooks() {
  const signature = (name: string, description: string) => ({
    name,
    in: 'header' as const,
    required: true,
    description,
    schema: { type: 'string' as const },
  });
  return Object.fromEntries(
    PAYMENT_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: operationIdOf('post', `webhook ${type}`),
          summary: `${type}: the payment details after the event`,
          parameters: [
            signature('webhook-id', 'msg_…: the same for every delivery of one event (dedupe by it)'),
            signature('webhook-timestamp', 'Unix seconds'),
            signature('webhook-signature', 'v1,<base64 HMAC-SHA256> under the merchant webhook secret'),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/PaymentEvent' } } },
          },
          responses: {
            '200': { description: 'Any 2xx within 10 s acknowledges the event' },
            '4XX': { description: 'Not acknowledged: retried on the schedule of docs/notifications.md' },
          },
        },
      },
    ]),
  );
}
