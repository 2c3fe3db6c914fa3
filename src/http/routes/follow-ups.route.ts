import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { FollowUpResponse } from '../../contracts/follow-up.js';
import type { Merchant } from '../../domain/merchants/merchant.js';
import type { FollowUpCommand, FollowUpOutcome, FollowUpService } from '../../domain/payments/follow-up-service.js';
import { toPaymentDetails } from '../../domain/payments/payment-details.js';
import { describeResponseCode } from '../../domain/payments/response-codes.js';
import { merchantOf } from '../auth/authenticate.js';
import type { IdempotentReplies } from '../plugins/idempotency.js';
import { amountValue } from './create-request.mapping.js';
import { createdHeaders, IdempotencyHeadersSchema, ProblemResponses } from './payment.schemas.js';
import { ref } from './shared-schemas.js';

const FollowUpParamsSchema = Type.Object({ payId: Type.String({ minLength: 1, maxLength: 64 }) });

export interface FollowUpRoutesOptions {
  followUps: FollowUpService;
  idempotency: IdempotentReplies;
  auth: preHandlerHookHandler;
  /** The base URL of the prefix these routes are served under (`https://kassa.example/api/v2`), for `_links`. */
  apiUrl: string;
}

type FollowUpAction = (merchant: Merchant, payId: string, cmd: FollowUpCommand) => Promise<FollowUpOutcome>;

/**
 * The operation's result, Paygate-style (paygate-v2-wire.md §3), with the updated payment details; `apiUrl` as
 * toPaymentDetails takes it.
 */
export function toFollowUpResponse({ payment, operation }: FollowUpOutcome, apiUrl: string): FollowUpResponse {
  return {
    payId: payment.payId,
    xId: operation.xId,
    transId: operation.transId ?? payment.transId,
    ...(operation.refNr !== undefined && { refNr: operation.refNr }),
    merchantId: payment.merchantId,
    type: operation.type as FollowUpResponse['type'],
    status: operation.status,
    responseCode: operation.responseCode,
    responseDescription: describeResponseCode(operation.responseCode),
    amount: { value: operation.value, currency: payment.currency },
    surcharge: { value: operation.surchargeValue, currency: payment.currency },
    totalAmount: { value: operation.value + operation.surchargeValue, currency: payment.currency },
    creationDate: operation.creationDate.toISOString(),
    payment: toPaymentDetails(payment, apiUrl),
  };
}

/**
 * `POST {prefix}/payments/{payId}/captures | refunds | reversals` (DESIGN.md §4, paygate-v2-wire.md §3). Each creates
 * an operation with its own xId and answers 201 Created with the operation's result and the updated payment details,
 * also when the acquirer declined (the operation then has status FAILED: a decline is a result, not an HTTP error).
 * Rule violations are problem+json: 400 VALIDATION_FAILED, 404 PAYMENT_NOT_FOUND, 409 for state and amount conflicts.
 * Idempotency-Key as for creation.
 */
export async function followUpRoutes(fastify: FastifyInstance, opts: FollowUpRoutesOptions) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { followUps, idempotency, auth, apiUrl } = opts;

  const route = (
    path: string,
    summary: string,
    body: 'CaptureRequest' | 'RefundRequest' | 'ReversalRequest',
    action: FollowUpAction,
  ) =>
    app.post(
      `/payments/:payId/${path}`,
      {
        preHandler: auth,
        schema: {
          summary,
          tags: ['payments'],
          params: FollowUpParamsSchema,
          body: ref(body),
          headers: IdempotencyHeadersSchema,
          response: {
            201: ref('FollowUpResponse', undefined, createdHeaders("the operation's payment")),
            ...ProblemResponses,
          },
        },
      },
      async (request, reply) => {
        const merchant = merchantOf(request);
        const { payId } = request.params;
        // Kept with the operation: a retry with this key never creates a second one (follow-up-service.ts).
        const requestKey = request.headers['idempotency-key'];
        // The three bodies differ only in `amount` being optional (reversals) and `finishAuth` (captures).
        const cmd = request.body;
        const finishAuth = 'finishAuth' in cmd ? cmd.finishAuth : undefined;
        return idempotency.send(
          request,
          reply,
          async () => {
            const outcome = await action(merchant, payId, {
              transId: cmd.transId,
              amount: cmd.amount && { value: amountValue(cmd.amount.value), currency: cmd.amount.currency },
              refNr: cmd.refNr,
              ...(finishAuth !== undefined && { finishAuth: finishAuth === 'Y' }),
              ...(requestKey !== undefined && { requestKey }),
            });
            return { status: 201, body: toFollowUpResponse(outcome, apiUrl) };
          },
          (answer) => answer.payment._links.self.href,
        );
      },
    );

  route('captures', 'Capture (part of) an authorized payment', 'CaptureRequest', (m, id, c) =>
    followUps.capture(m, id, c),
  );
  route('refunds', 'Refund (part of) the captured amount', 'RefundRequest', (m, id, c) => followUps.refund(m, id, c));
  route('reversals', 'Reverse (cancel) an uncaptured authorization', 'ReversalRequest', (m, id, c) =>
    followUps.reverse(m, id, c),
  );
}
