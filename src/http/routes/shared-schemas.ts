import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { type Static, type TSchema, Type } from 'typebox';
import { CreatePaymentRequest, CreateSessionRequest } from '../../contracts/create-request.js';
import { PAYMENT_EVENT_TYPES, PaymentEvent } from '../../contracts/events.js';
import { CaptureRequest, FollowUpResponse, RefundRequest, ReversalRequest } from '../../contracts/follow-up.js';
import { PaymentDetails } from '../../contracts/payment-details.js';
import { Problem } from '../../contracts/problem.js';
import { SessionResponse } from '../../contracts/session.js';
import { authenticationResponseSchema } from '../../domain/threeds/authentication-response.schema.js';

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

/** An answer's response header as openapi.json documents it (OpenAPI 3.1 Header Object: a string schema). */
export interface DocumentedHeader {
  type: 'string';
  description: string;
}

/**
 * A `$ref` to a shared schema that keeps its static type for the TypeBox type provider. `headers`: the headers an
 * answer with this body carries, for openapi.json (@fastify/swagger turns them into the response's `headers`; the
 * serializer ignores them).
 */
export function ref<N extends SharedSchemaName>(
  name: N,
  description?: string,
  headers?: Record<string, DocumentedHeader>,
) {
  return Type.Unsafe<Static<(typeof SHARED_SCHEMAS)[N]>>({
    $ref: `${name}#`,
    ...(description !== undefined && { description }),
    ...(headers !== undefined && { headers }),
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

/** OpenAPI 3.1 `webhooks`, as @fastify/swagger takes them. */
type OpenApiWebhooks = NonNullable<
  Extract<NonNullable<FastifyDynamicSwaggerOptions['openapi']>, { webhooks?: unknown }>['webhooks']
>;

/**
 * The notifications Kassa POSTs to the merchant as OpenAPI 3.1 `webhooks` (docs/notifications.md): one per `payment.*`
 * event type, body PaymentEvent, and the Authentication Notification (`authentication`, spec §2: its
 * `authenticationResponse` is the published JSON Schema of spec §2.1); each signed with Standard Webhooks headers; any
 * 2xx acknowledges.
 */
export function notificationWebhooks(): OpenApiWebhooks {
  const signature = (name: string, description: string) => ({
    name,
    in: 'header' as const,
    required: true,
    description,
    schema: { type: 'string' as const },
  });
  const webhook = (type: string, summary: string, schema: unknown) => ({
    post: {
      operationId: operationIdOf('post', `webhook ${type}`),
      summary,
      parameters: [
        signature('webhook-id', 'msg_…: the same for every delivery of one event (dedupe by it)'),
        signature('webhook-timestamp', 'Unix seconds'),
        signature(
          'webhook-signature',
          'v1,<base64 HMAC-SHA256> under the merchant webhook secret; while a rotated-out secret still signs, two, ' +
            'space-delimited, the current secret first (any one verifying suffices)',
        ),
      ],
      requestBody: { required: true, content: { 'application/json': { schema } } },
      responses: {
        '200': { description: 'Any 2xx within 10 s acknowledges the event' },
        '4XX': { description: 'Not acknowledged: retried on the schedule of docs/notifications.md' },
      },
    },
  });
  const {
    $id: _id,
    $schema: _schema,
    ...authenticationResponse
  } = authenticationResponseSchema as Record<string, unknown>;
  // The embedded JSON Schema is typed as a plain object: openapi-types' SchemaObject does not model `if`/`then`.
  return {
    authentication: webhook(
      'authentication',
      'authentication: the Authentication Notification after the ARes of a DIRECT payment (spec §2)',
      {
        type: 'object',
        required: ['type', 'payId', 'transId', 'merchantId', 'creationDate', 'authenticationResponse'],
        additionalProperties: false,
        properties: {
          type: { type: 'string', enum: ['authentication'] },
          payId: { type: 'string' },
          transId: { type: 'string' },
          merchantId: { type: 'string' },
          creationDate: { type: 'string', format: 'date-time' },
          authenticationResponse: {
            ...authenticationResponse,
            description: 'spec §2.1, exactly; published at /schemas/authentication-response.json',
          },
        },
      },
    ),
    ...Object.fromEntries(
      PAYMENT_EVENT_TYPES.map((type) => [
        type,
        webhook(type, `${type}: the payment details after the event`, { $ref: '#/components/schemas/PaymentEvent' }),
      ]),
    ),
  } as OpenApiWebhooks;
}
