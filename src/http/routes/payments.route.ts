import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from 'fastify';
import type { PaymentDetails } from '../../contracts/payment-details.js';
import { validationError } from '../../domain/errors/error-catalogue.js';
import { type HostedPaymentService, hostedPaymentExpiresAt } from '../../domain/payments/hosted-payment-service.js';
import type { Payment } from '../../domain/payments/payment.js';
import { toPaymentDetails } from '../../domain/payments/payment-details.js';
import type { PaymentService } from '../../domain/payments/payment-service.js';
import type { HostedLinks } from '../../hosted/links.js';
import { merchantOf } from '../auth/authenticate.js';
import type { IdempotentReplies } from '../plugins/idempotency.js';
import { toCreatePaymentCommand } from './create-request.mapping.js';
import {
  createdHeaders,
  IdempotencyHeadersSchema,
  PayIdParamsSchema,
  ProblemResponses,
  TransIdParamsSchema,
} from './payment.schemas.js';
import { ref } from './shared-schemas.js';

export interface PaymentRoutesOptions {
  payments: PaymentService;
  hosted: HostedPaymentService;
  links: HostedLinks;
  idempotency: IdempotentReplies;
  auth: preHandlerHookHandler;
  /**
   * `auth` for getByPayId and getByTransId, which may read the payment with the credentials (`request.readAlongside`:
   * the payment `findByPayId(merchantId, payID)` or `findLatestByTransId(merchantId, transID)` answers); `auth` when
   * absent.
   */
  lookupAuth?: preHandlerHookHandler;
  /** The base URL of the prefix these routes are served under (`https://kassa.example/api/v2`), for `_links`. */
  apiUrl: string;
}

/** The payment `lookupAuth` read with the credentials (`request.readAlongside`), when it did. */
function readPayment(request: FastifyRequest): { payment: Payment | undefined } | undefined {
  const read = request.readAlongside as { value: Payment | undefined } | undefined;
  return read && { payment: read.value };
}

/** The `Location` of a created payment: its getByPayId URL. */
const selfLink = (details: PaymentDetails): string => details._links.self.href;

/** `{prefix}/payments`: create and read payments (spec §4.2, §4.4, §4.5; paygate-v2-wire.md §2, §4). */
export async function paymentRoutes(fastify: FastifyInstance, opts: PaymentRoutesOptions) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { payments, idempotency, auth, apiUrl } = opts;
  /** Payment details; a HOSTED payment still waiting for its card links to Kassa's card step. */
  const detailsOf = (payment: Payment): PaymentDetails => {
    const details = toPaymentDetails(payment, apiUrl);
    if (payment.integrationType === 'HOSTED' && payment.status === 'PENDING' && !payment.sessionId) {
      details._links.redirect = { href: opts.links.url('payment', payment.payId, hostedPaymentExpiresAt(payment)) };
    }
    return details;
  };

  app.post(
    '/payments',
    {
      preHandler: auth,
      schema: {
        summary: 'Create a card payment',
        description:
          'DIRECT: 201 with the result (OK, AUTHORIZED, FAILED, or PENDING with `_links.redirect` for a challenge). ' +
          "HOSTED: 202, PENDING with `_links.redirect.href` to the card step. Both carry `Location`, the payment's " +
          'getByPayId URL.',
        tags: ['payments'],
        body: ref('CreatePaymentRequest'),
        headers: IdempotencyHeadersSchema,
        response: {
          201: ref('PaymentDetails', 'DIRECT payment details', createdHeaders('the payment')),
          202: ref('PaymentDetails', 'HOSTED payment waiting for the card step', createdHeaders('the payment')),
          ...ProblemResponses,
        },
      },
    },
    async (request, reply) => {
      const merchant = merchantOf(request);
      const body = request.body;
      return idempotency.send(
        request,
        reply,
        async () => {
          const command = toCreatePaymentCommand(merchant.merchantId, body);
          if (command.integrationType === 'HOSTED') {
            const card = body.paymentMethods.card;
            if (card?.number !== undefined || card?.securityCode !== undefined) {
              // Security: hosted forms exist so that the merchant never handles card data (spec §1.4).
              throw validationError([
                {
                  field: 'paymentMethods.card.number',
                  message: 'must not be sent with HOSTED: the cardholder types it on Kassa',
                },
              ]);
            }
            return { status: 202, body: detailsOf(await opts.hosted.createHostedPayment(merchant, command)) };
          }
          const card = body.paymentMethods.card;
          const missing = (['number', 'expiryDate'] as const).filter((name) => card?.[name] === undefined);
          if (missing.length > 0) {
            throw validationError(
              missing.map((name) => ({
                field: `paymentMethods.card.${name}`,
                message: 'is required for DIRECT payments',
              })),
            );
          }
          return { status: 201, body: detailsOf(await payments.createDirectPayment(merchant, command)) };
        },
        selfLink,
      );
    },
  );

  app.get(
    '/payments/getByPayId/:payID',
    {
      preHandler: opts.lookupAuth ?? auth,
      schema: {
        summary: 'Payment details by payId',
        tags: ['payments'],
        params: PayIdParamsSchema,
        response: { 200: ref('PaymentDetails'), ...ProblemResponses },
      },
    },
    async (request) =>
      detailsOf(await payments.getByPayId(merchantOf(request).merchantId, request.params.payID, readPayment(request))),
  );

  app.get(
    '/payments/getByTransId/:transID',
    {
      preHandler: opts.lookupAuth ?? auth,
      schema: {
        summary: 'Details of the latest payment with a transId',
        tags: ['payments'],
        params: TransIdParamsSchema,
        response: { 200: ref('PaymentDetails'), ...ProblemResponses },
      },
    },
    async (request) =>
      detailsOf(
        await payments.getByTransId(merchantOf(request).merchantId, request.params.transID, readPayment(request)),
      ),
  );
}
