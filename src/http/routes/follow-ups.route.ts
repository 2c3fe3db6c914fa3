import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import { type Static, Type } from 'typebox';
import type { IdempotencyService } from '../../domain/idempotency/idempotency.js';
import type { Merchant } from '../../domain/merchants/merchant.js';
import type { FollowUpCommand, FollowUpOutcome, FollowUpService } from '../../domain/payments/follow-up-service.js';
import { toPaymentDetails } from '../../domain/payments/payment-details.js';
import { merchantOf } from '../auth/authenticate.js';
import { AmountSchema, IdempotencyHeadersSchema } from './payment.schemas.js';
import { sendIdempotent } from './payments.route.js';

const TransId = Type.String({
  pattern: '^[\\x21-\\x7E]{1,64}$',
  description: "The payment's transId; must match the payment (guards against acting on the wrong payment)",
});
const RefNr = Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "The merchant's reference" }));

/** Body of captures and refunds: `amount` in the merchant's basis, without surcharge (spec §1.10). */
export const FollowUpBodySchema = Type.Object(
  { transId: TransId, amount: AmountSchema, refNr: RefNr },
  {
    additionalProperties: false,
  },
);

/** Body of reversals: `amount`, when given, must be the whole authorized amount. */
export const ReversalBodySchema = Type.Object(
  { transId: TransId, amount: Type.Optional(AmountSchema), refNr: RefNr },
  {
    additionalProperties: false,
  },
);

const FollowUpParamsSchema = Type.Object({ payId: Type.String({ minLength: 1, maxLength: 64 }) });

export interface FollowUpRoutesOptions {
  followUps: FollowUpService;
  idempotency: IdempotencyService;
  auth: preHandlerHookHandler;
  publicUrl: string;
}

type FollowUpAction = (merchant: Merchant, payId: string, cmd: FollowUpCommand) => Promise<FollowUpOutcome>;

/**
 * `POST /api/v1/payments/{payId}/captures | refunds | reversals` (DESIGN.md §4). Each creates an operation with its
 * own xId and answers 201 Created with the updated payment details, also when the acquirer declined (the new
 * operation then shows status FAILED: a decline is a result, not an HTTP error). Rule violations are problem+json:
 * 400 VALIDATION_FAILED, 404 PAYMENT_NOT_FOUND, 409 for state and amount conflicts. Idempotency-Key as for creation.
 */
export async function followUpRoutes(app: FastifyInstance, opts: FollowUpRoutesOptions) {
  const { followUps, idempotency, auth, publicUrl } = opts;

  const route = (
    path: string,
    summary: string,
    body: typeof FollowUpBodySchema | typeof ReversalBodySchema,
    action: FollowUpAction,
  ) =>
    app.post(
      `/api/v1/payments/:payId/${path}`,
      {
        preHandler: auth,
        schema: { summary, tags: ['payments'], params: FollowUpParamsSchema, body, headers: IdempotencyHeadersSchema },
      },
      async (request, reply) => {
        const merchant = merchantOf(request);
        const { payId } = request.params as Static<typeof FollowUpParamsSchema>;
        const cmd = request.body as FollowUpCommand;
        return sendIdempotent(idempotency, request, reply, async () => {
          const { payment } = await action(merchant, payId, {
            transId: cmd.transId,
            amount: cmd.amount,
            refNr: cmd.refNr,
          });
          const details = toPaymentDetails(payment, publicUrl);
          reply.header('location', (details._links as { self: { href: string } }).self.href);
          return { status: 201, body: details };
        });
      },
    );

  route('captures', 'Capture (part of) an authorized payment', FollowUpBodySchema, (m, id, c) =>
    followUps.capture(m, id, c),
  );
  route('refunds', 'Refund (part of) the captured amount', FollowUpBodySchema, (m, id, c) =>
    followUps.refund(m, id, c),
  );
  route('reversals', 'Reverse (cancel) an uncaptured authorization', ReversalBodySchema, (m, id, c) =>
    followUps.reverse(m, id, c),
  );
}
