import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { SessionResponse } from '../../contracts/session.js';
import { SESSION_TRIES_EXHAUSTED_CODE } from '../../domain/payments/card-testing.js';
import type { HostedPaymentService } from '../../domain/payments/hosted-payment-service.js';
import type { Clock } from '../../domain/ports/clock.js';
import { type CheckoutSession, sessionStatus } from '../../domain/sessions/checkout-session.js';
import type { HostedLinks } from '../../hosted/links.js';
import { merchantOf } from '../auth/authenticate.js';
import type { IdempotentReplies } from '../plugins/idempotency.js';
import { toCreateSessionCommand } from './create-request.mapping.js';
import { createdHeaders, IdempotencyHeadersSchema, ProblemResponses } from './payment.schemas.js';
import { ref } from './shared-schemas.js';

export interface SessionRoutesOptions {
  hosted: HostedPaymentService;
  idempotency: IdempotentReplies;
  auth: preHandlerHookHandler;
  links: HostedLinks;
  clock: Clock;
  /** The base URL of the prefix these routes are served under (`https://kassa.example/api/v2`), for `_links`. */
  apiUrl: string;
}

/** `{prefix}/payments/sessions`: hosted payment page sessions (spec §1.8 (b), §4.3; DESIGN.md §4; wire §2). */
export async function sessionRoutes(fastify: FastifyInstance, opts: SessionRoutesOptions) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const toWire = (s: CheckoutSession): SessionResponse => {
    const info = s.informational ?? {};
    const status = sessionStatus(s, opts.clock.now());
    return {
      sessionId: s.sessionId,
      transId: s.transId,
      ...(s.refNr !== undefined && { refNr: s.refNr }),
      ...(info.externalIntegrationId !== undefined && { externalIntegrationId: info.externalIntegrationId }),
      ...(info.requestId !== undefined && { requestId: info.requestId }),
      merchantId: s.merchantId,
      status,
      ...(status === 'FAILED' && { responseCode: SESSION_TRIES_EXHAUSTED_CODE }),
      amount: { value: s.value, currency: s.currency },
      captureMethod: info.captureMethod ?? { type: s.captureMethod },
      ...(s.language && { language: s.language }),
      ...(info.template && { template: info.template }),
      ...(s.order && { order: s.order }),
      urls: s.urls,
      ...(s.metadata && { metadata: s.metadata }),
      ...(s.payId && { payId: s.payId }),
      expiresAt: s.expiresAt.toISOString(),
      expirationTime: s.expiresAt.toISOString(),
      creationDate: s.creationDate.toISOString(),
      _links: {
        self: { href: `${opts.apiUrl}/payments/sessions/${s.sessionId}` },
        redirect: { href: opts.links.url('session', s.sessionId, s.expiresAt) },
        ...(s.payId && { payment: { href: `${opts.apiUrl}/payments/getByPayId/${s.payId}` } }),
      },
    };
  };

  app.post(
    '/payments/sessions',
    {
      preHandler: opts.auth,
      schema: {
        summary: 'Create a hosted payment page session',
        tags: ['sessions'],
        body: ref('CreateSessionRequest'),
        headers: IdempotencyHeadersSchema,
        response: {
          201: ref('SessionResponse', undefined, createdHeaders('the session')),
          ...ProblemResponses,
        },
      },
    },
    async (request, reply) => {
      const merchant = merchantOf(request);
      const body = request.body;
      return opts.idempotency.send(
        request,
        reply,
        async () => {
          const session = await opts.hosted.createSession(merchant, toCreateSessionCommand(merchant.merchantId, body));
          return { status: 201, body: toWire(session) };
        },
        (wire) => wire._links.self.href,
      );
    },
  );

  app.get(
    '/payments/sessions/:sessionId',
    {
      preHandler: opts.auth,
      schema: {
        summary: 'A hosted payment page session',
        tags: ['sessions'],
        params: Type.Object({ sessionId: Type.String({ maxLength: 64 }) }),
        response: { 200: ref('SessionResponse'), ...ProblemResponses },
      },
    },
    async (request) => toWire(await opts.hosted.getSession(merchantOf(request).merchantId, request.params.sessionId)),
  );
}
