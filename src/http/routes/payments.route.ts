import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import type { Static } from 'typebox';
import { validationError } from '../../domain/errors/error-catalogue.js';
import { type IdempotencyService, requestFingerprint } from '../../domain/idempotency/idempotency.js';
import { HOSTED_LINK_TTL_SECONDS, type HostedPaymentService } from '../../domain/payments/hosted-payment-service.js';
import type { Payment } from '../../domain/payments/payment.js';
import { toPaymentDetails } from '../../domain/payments/payment-details.js';
import type { ChallengePreference, CreatePaymentCommand } from '../../domain/payments/payment-request.js';
import type { PaymentService } from '../../domain/payments/payment-service.js';
import type { HostedLinks } from '../../hosted/links.js';
import { merchantOf } from '../auth/authenticate.js';
import {
  CreatePaymentBodySchema,
  IdempotencyHeadersSchema,
  PayIdParamsSchema,
  TransIdParamsSchema,
} from './payment.schemas.js';

type CreatePaymentBody = Static<typeof CreatePaymentBodySchema>;

export interface PaymentRoutesOptions {
  payments: PaymentService;
  hosted: HostedPaymentService;
  links: HostedLinks;
  idempotency: IdempotencyService;
  auth: preHandlerHookHandler;
  publicUrl: string;
}

/** Maps the validated JSON body onto the domain command. */
function toCommand(merchantId: string, body: CreatePaymentBody): CreatePaymentCommand {
  return {
    merchantId,
    transId: body.transId,
    refNr: body.refNr,
    amount: body.amount,
    captureMethod: body.captureMethod?.type ?? 'AUTOMATIC',
    integrationType: body.paymentMethods.integrationType,
    channel: body.channel ?? 'BROWSER',
    language: body.language,
    card: body.paymentMethods.card,
    challengePreference: (body.threeDsPolicy?.challengePreference ?? 'NO_PREFERENCE') as ChallengePreference,
    browserAuthentication: body.threeDsPolicy?.browserAuthentication,
    browserInfo: body.browserInfo as CreatePaymentCommand['browserInfo'],
    sdkInfo: body.sdkInfo as CreatePaymentCommand['sdkInfo'],
    order: body.order,
    customerInfo: body.customerInfo,
    urls: body.urls,
    metadata: body.metadata,
  };
}

/**
 * Runs a POST handler under the request's Idempotency-Key (DESIGN.md §4), when it has one, and sends the answer.
 * Replays carry `idempotent-replayed: true`.
 */
export async function sendIdempotent(
  idempotency: IdempotencyService,
  request: FastifyRequest,
  reply: FastifyReply,
  work: () => Promise<{ status: number; body: unknown }>,
): Promise<FastifyReply> {
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string') {
    const r = await work();
    return reply.status(r.status).send(r.body);
  }
  const merchant = merchantOf(request);
  // The concrete URL (with its payId), so that one key cannot replay an answer for another payment.
  const fingerprint = requestFingerprint(request.method, request.url, request.body);
  const result = await idempotency.run(merchant.merchantId, key, fingerprint, async () => {
    const r = await work();
    return { status: r.status, body: JSON.stringify(r.body) };
  });
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return reply.status(result.status).type('application/json').send(result.body);
}

/** `/api/v1/payments`: create and read payments (spec §4.2, §4.4, §4.5). */
export async function paymentRoutes(app: FastifyInstance, opts: PaymentRoutesOptions) {
  const { payments, idempotency, auth, publicUrl } = opts;
  /** Payment details; a HOSTED payment still waiting for its card links to Kassa's card step. */
  const detailsOf = (payment: Payment) => {
    const details = toPaymentDetails(payment, publicUrl);
    if (payment.integrationType === 'HOSTED' && payment.status === 'PENDING' && !payment.sessionId) {
      const expiresAt = new Date(payment.creationDate.getTime() + HOSTED_LINK_TTL_SECONDS * 1000);
      const links = details._links as Record<string, unknown>;
      links.redirect = { href: opts.links.url('payment', payment.payId, expiresAt) };
    }
    return details;
  };

  app.post(
    '/api/v1/payments',
    {
      preHandler: auth,
      schema: {
        summary: 'Create a card payment',
        tags: ['payments'],
        body: CreatePaymentBodySchema,
        headers: IdempotencyHeadersSchema,
      },
    },
    async (request, reply) => {
      const merchant = merchantOf(request);
      const body = request.body as CreatePaymentBody;
      return sendIdempotent(idempotency, request, reply, async () => {
        const command = toCommand(merchant.merchantId, body);
        if (command.integrationType === 'HOSTED') {
          if (command.card) {
            // Security: hosted forms exist so that the merchant never handles card data (spec §1.4).
            throw validationError([
              {
                field: 'paymentMethods.card',
                message: 'must not be sent with HOSTED: the cardholder types it on Kassa',
              },
            ]);
          }
          const payment = await opts.hosted.createHostedPayment(merchant, command);
          const details = detailsOf(payment);
          reply.header('location', (details._links as { self: { href: string } }).self.href);
          return { status: 202, body: details };
        }
        const payment = await payments.createDirectPayment(merchant, command);
        const details = detailsOf(payment);
        reply.header('location', (details._links as { self: { href: string } }).self.href);
        return { status: 201, body: details };
      });
    },
  );

  app.get(
    '/api/v1/payments/getByPayId/:payID',
    {
      preHandler: auth,
      schema: { summary: 'Payment details by payId', tags: ['payments'], params: PayIdParamsSchema },
    },
    async (request) => {
      const { payID } = request.params as Static<typeof PayIdParamsSchema>;
      return detailsOf(await payments.getByPayId(merchantOf(request).merchantId, payID));
    },
  );

  app.get(
    '/api/v1/payments/getByTransId/:transID',
    {
      preHandler: auth,
      schema: {
        summary: 'Details of the latest payment with a transId',
        tags: ['payments'],
        params: TransIdParamsSchema,
      },
    },
    async (request) => {
      const { transID } = request.params as Static<typeof TransIdParamsSchema>;
      return detailsOf(await payments.getByTransId(merchantOf(request).merchantId, transID));
    },
  );
}
