import { type Static, Type } from 'typebox';

/**
 * Every error answer: RFC 9457 problem+json with Kassa's `code` and Paygate's `responseCode` and
 * `responseDescription` (the human text; `paygate-v2-wire.md` §5), and `errors` naming each refused field.
 */
export const Problem = Type.Object({
  type: Type.String({ description: 'urn:kassa:error:<code>' }),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  code: Type.String({ description: 'docs/errors.md' }),
  responseCode: Type.String({ pattern: '^[0-9]{8}$' }),
  responseDescription: Type.String(),
  requestId: Type.String(),
  errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
});
export type Problem = Static<typeof Problem>;
