/**
 * Kassa's 3-D Secure pages in the cardholder's browser (DESIGN.md §6): the 3DS Method page and its callback, the
 * continuation that sends the AReq, the challenge redirect (`_links.redirect.href` of a browser C) and the
 * notificationURL the ACS sends the browser back to. Every page but the two ACS callbacks requires the payment's
 * redirect token; the callbacks are tied to the payment by the threeDSServerTransID / acsTransID they carry.
 * The pages call PaymentService only; they never read storage.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ThreeDSBrowserStep } from '../../domain/payments/three-ds-browser-steps.js';
import { pickLanguage } from '../i18n.js';
import { merchantOrigins, newNonce, originOf, sendPage } from '../render.js';
import { THREE_DS_PATHS } from './three-ds-links.js';
import {
  ChallengeRedirectPage,
  FinishedPage,
  InvalidLinkPage,
  MethodNotificationPage,
  MethodPage,
  THREE_DS_STEP_HEADER,
  WaitingPage,
} from './three-ds-pages.js';

/** What the 3-D Secure pages need: the payment service's browser-step API (see PaymentService). */
export interface ThreeDSPageRoutesOptions {
  payments: {
    threeDSMethodStep(payId: string, token: unknown): Promise<ThreeDSBrowserStep>;
    recordThreeDSMethodCompletion(payId: string, threeDSMethodData: unknown): Promise<boolean>;
    continueAfterThreeDSMethod(payId: string, token: unknown): Promise<ThreeDSBrowserStep>;
    challengeStep(payId: string, token: unknown): Promise<ThreeDSBrowserStep>;
    challengeNotification(payId: string, cres: unknown): Promise<ThreeDSBrowserStep>;
  };
}

type Params = { payId: string };
type Query = { token?: string };
type Form = Record<string, string | undefined>;

/**
 * Renders a browser step as its page, with the CSP that step needs (ACS origins for forms and frames), in the
 * payment's language when Kassa speaks it, else the browser's (Accept-Language), else English.
 */
export function sendThreeDSStep(request: FastifyRequest, reply: FastifyReply, step: ThreeDSBrowserStep): FastifyReply {
  const nonce = newNonce();
  reply.header(THREE_DS_STEP_HEADER, step.kind);
  const lang = pickLanguage(
    step.kind === 'INVALID_LINK' ? undefined : step.payment.language,
    request.headers['accept-language'],
  );
  if (step.kind === 'INVALID_LINK') return sendPage(reply, InvalidLinkPage({ nonce, lang }), nonce, {}, 404);
  // The shop's iframe mode shows these pages in its checkout too (render.ts PagePolicy.framedBy).
  const framedBy = merchantOrigins(step.payment.urls);
  switch (step.kind) {
    case 'METHOD': {
      const origin = originOf(step.threeDSMethodURL);
      const acs = origin === undefined ? [] : [origin];
      return sendPage(
        reply,
        MethodPage({
          nonce,
          lang,
          threeDSMethodURL: step.threeDSMethodURL,
          threeDSMethodData: step.threeDSMethodData,
          continueUrl: step.continueUrl,
          timeoutMs: step.timeoutMs,
        }),
        nonce,
        { formAction: acs, frameSrc: acs, framedBy },
      );
    }
    case 'CHALLENGE': {
      const origin = originOf(step.acsURL);
      return sendPage(reply, ChallengeRedirectPage({ nonce, lang, acsURL: step.acsURL, creq: step.creq }), nonce, {
        formAction: origin === undefined ? [] : [origin],
        framedBy,
      });
    }
    case 'WAITING':
      // connect-src 'self': the page's script polls its retry URL (the same step's page) for a change of step.
      return sendPage(
        reply,
        WaitingPage({ nonce, lang, retryUrl: step.retryUrl, cardholderInfo: step.cardholderInfo }),
        nonce,
        { connectSelf: true, framedBy },
      );
    case 'FINISHED': {
      const succeeded = step.payment.status === 'AUTHORIZED' || step.payment.status === 'OK';
      return sendPage(reply, FinishedPage({ nonce, lang, succeeded, returnUrl: step.returnUrl }), nonce, { framedBy });
    }
  }
}

/** Fastify plugin: the 3-D Secure pages under /3ds (paths: THREE_DS_PATHS). */
export async function threeDSPageRoutes(app: FastifyInstance, opts: ThreeDSPageRoutesOptions): Promise<void> {
  const { payments } = opts;
  const hide = { schema: { hide: true } };

  app.get(THREE_DS_PATHS.method, hide, async (request, reply) => {
    const { payId } = request.params as Params;
    return sendThreeDSStep(request, reply, await payments.threeDSMethodStep(payId, (request.query as Query).token));
  });

  app.post(THREE_DS_PATHS.methodNotification, hide, async (request, reply) => {
    const { payId } = request.params as Params;
    const form = (request.body ?? {}) as Form;
    await payments.recordThreeDSMethodCompletion(payId, form.threeDSMethodData);
    // Same page whether or not it was recorded: the parent continues either way, and nothing is revealed.
    const nonce = newNonce();
    return sendPage(
      reply,
      MethodNotificationPage({ nonce, lang: pickLanguage(undefined, request.headers['accept-language']) }),
      nonce,
      // Framed by Kassa's method page, which a shop's iframe may hold (frame-ancestors checks every ancestor). Any
      // ancestor: the page has nothing to click, and its one message goes to Kassa's own origin only.
      { framedBy: ['*'] },
    );
  });

  app.get(THREE_DS_PATHS.continue, hide, async (request, reply) => {
    const { payId } = request.params as Params;
    return sendThreeDSStep(
      request,
      reply,
      await payments.continueAfterThreeDSMethod(payId, (request.query as Query).token),
    );
  });

  app.get(THREE_DS_PATHS.challenge, hide, async (request, reply) => {
    const { payId } = request.params as Params;
    return sendThreeDSStep(request, reply, await payments.challengeStep(payId, (request.query as Query).token));
  });

  app.post(THREE_DS_PATHS.challengeNotification, hide, async (request, reply) => {
    const { payId } = request.params as Params;
    const form = (request.body ?? {}) as Form;
    return sendThreeDSStep(request, reply, await payments.challengeNotification(payId, form.cres));
  });
}
