import { Type } from 'typebox';
import { ref } from './shared-schemas.js';

/** Path and header schemas shared by the merchant API routes; bodies and answers are in `src/contracts/`. */

export const PayIdParamsSchema = Type.Object({ payID: Type.String({ minLength: 1, maxLength: 64 }) });
export const TransIdParamsSchema = Type.Object({ transID: Type.String({ minLength: 1, maxLength: 64 }) });

export const IdempotencyHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
});

/** The problem+json answers every authenticated merchant route can give (4xx, and the generic 5xx). */
export const ProblemResponses = {
  '4xx': {
    description: 'problem+json naming the code and, for 400, each refused field',
    content: { 'application/problem+json': { schema: ref('Problem') } },
  },
  '5xx': {
    description: 'problem+json; the cause stays in the log under requestId',
    content: { 'application/problem+json': { schema: ref('Problem') } },
  },
};
