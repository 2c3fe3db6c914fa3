import { type Static, type TSchema, Type } from 'typebox';
import { CreatePaymentRequest, CreateSessionRequest } from '../../contracts/create-request.js';
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
