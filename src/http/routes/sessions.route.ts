import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import { type Static, Type } from 'typebox';
import type { IdempotencyService } from '../../domain/idempotency/idempotency.js';
import type { HostedPaymentService } from '../../domain/payments/hosted-payment-service.js';
import type { Clock } from '../../domain/ports/clock.js';
import { type CheckoutSession, sessionStatus } from '../../domain/sessions/checkout-session.js';
import type { HostedLinks } from '../../hosted/links.js';
import { merchantOf } from '../auth/authenticate.js';
import { CreatePaymentBodySchema, IdempotencyHeadersSchema } from './payment.schemas.js';
import { sendIdempotent } from './payments.route.js';

const Url = Type.String({ format: 'uri', maxLength: 2048 });
const P = CreatePaymentBodySchema.properties;

/** Body of `POST /api/v1/payments/sessions` (spec §4.3): the order; no card data ever. */
export const CreateSessionBodySchema = Type.Object(
  {
    transId: P.transId,
    refNr: P.refNr,
    amount: P.amount,
    captureMethod: P.captureMethod,
    language: P.language,
    order: P.order,
    customerInfo: P.customerInfo,
    urls: Type.Object({ return: Url, cancel: Url, webhook: Type.Optional(Url) }, { additionalProperties: false }),
    metadata: P.metadata,
    expiresInSeconds: Type.Optional(Type.Integer({ minimum: 300, maximum: 86_400, description: 'seconds' })),
  },
  { additionalProperties: false },
);
type CreateSessionBody = Static<typeof CreateSessionBodySchema>;

export interface SessionRoutesOptions {
  hosted: HostedPaymentService;
  idempotency: IdempotencyService;
  auth: preHandlerHookHandler;
  links: HostedLinks;
  clock: Clock;
  publicUrl: string;
}

/** `/api/v1/payments/sessions`: hosted payment page sessions (spec §1.8 (b), §4.3; DESIGN.md §4). */
export async function sessionRoutes(app: FastifyInstance, opts: SessionRoutesOptions) {
  const toWire = (s: CheckoutSession) => ({
    sessionId: s.sessionId,
    transId: s.transId,
    ...(s.refNr !== undefined && { refNr: s.refNr }),
    merchantId: s.merchantId,
    status: sessionStatus(s, opts.clock.now()),
    amount: { value: s.value, currency: s.currency },
    captureMethod: { type: s.captureMethod },
    ...(s.language && { language: s.language }),
    ...(s.order && { order: s.order }),
    urls: s.urls,
    ...(s.metadata && { metadata: s.metadata }),
    ...(s.payId && { payId: s.payId }),
    expiresAt: s.expiresAt.toISOString(),
    creationDate: s.creationDate.toISOString(),
    _links: {
      self: { href: `${opts.publicUrl}/api/v1/payments/sessions/${s.sessionId}` },
      redirect: { href: opts.links.url('session', s.sessionId, s.expiresAt) },
      ...(s.payId && { payment: { href: `${opts.publicUrl}/api/v1/payments/getByPayId/${s.payId}` } }),
    },
  });

  app.post(
    '/api/v1/payments/sessions',
    {
      preHandler: opts.auth,
      schema: {
        summary: 'Create a hosted payment page session',
        tags: ['sessions'],
        body: CreateSessionBodySchema,
        headers: IdempotencyHeadersSchema,
      },
    },
    async (request, reply) => {
      const merchant = merchantOf(request);
      const body = request.body as CreateSessionBody;
      return sendIdempotent(opts.idempotency, request, reply, async () => {
        const session = await opts.hosted.createSession(merchant, {
          merchantId: merchant.merchantId,
          transId: body.transId,
          refNr: body.refNr,
          amount: body.amount,
          captureMethod: body.captureMethod?.type ?? 'AUTOMATIC',
          language: body.language,
          order: body.order,
          customerInfo: body.customerInfo,
          urls: body.urls,
          metadata: body.metadata,
          expiresInSeconds: body.expiresInSeconds,
        });
        const wire = toWire(session);
        reply.header('location', wire._links.self.href);
        return { status: 201, body: wire };
      });
    },
  );

  app.get(
    '/api/v1/payments/sessions/:sessionId',
    {
      preHandler: opts.auth,
      schema: {
        summary: 'A hosted payment page session',
        tags: ['sessions'],
        params: Type.Object({ sessionId: Type.String({ maxLength: 64 }) }),
      },
    },
    async (request) => {
      const { sessionId } = request.params as { sessionId: string };
      return toWire(await opts.hosted.getSession(merchantOf(request).merchantId, sessionId));
    },
  );
}
