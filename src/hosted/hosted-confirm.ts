import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HostedPaymentService } from '../domain/payments/hosted-payment-service.js';
import type { Payment } from '../domain/payments/payment.js';
import type { BrowserInfo } from '../domain/payments/payment-request.js';
import type { PaymentService } from '../domain/payments/payment-service.js';
import type { Language } from './i18n.js';

type Form = Record<string, string | undefined>;

/** The EMVCo browser data of the cardholder's browser, from the request and the review form's hidden fields. */
export function browserInfoOf(request: FastifyRequest, language: Language): BrowserInfo {
  const form = (request.body ?? {}) as Form;
  const js = form.javaScriptEnabled === 'true';
  const int = (v: string | undefined) => (v && /^-?\d+$/.test(v) ? Number(v) : undefined);
  const colorDepth = int(form.colorDepth);
  return {
    acceptHeaders: String(request.headers.accept ?? 'text/html').slice(0, 2048),
    ipAddress: request.ip,
    javaScriptEnabled: js,
    language:
      String(request.headers['accept-language'] ?? language)
        .split(',')[0]
        ?.trim()
        .slice(0, 35) || language,
    ...(js && {
      colorDepth: [1, 4, 8, 15, 16, 24, 32, 48].includes(colorDepth ?? 0) ? colorDepth : 24,
      screenHeight: int(form.screenHeight),
      screenWidth: int(form.screenWidth),
      timeZoneOffset: int(form.timeZoneOffset),
    }),
    userAgent: String(request.headers['user-agent'] ?? 'unknown').slice(0, 2048),
    challengeWindowSize: '05',
  } as BrowserInfo;
}

/** Where the browser goes when a hosted payment has ended: `urls.cancel` for a cancellation, else `urls.return`. */
export function finalRedirect(payment: Payment): string | undefined {
  const cancelled = payment.responseCode === '20040002' || payment.responseCode === '20010003';
  const target = cancelled ? (payment.urls?.cancel ?? payment.urls?.return) : payment.urls?.return;
  if (!target) return undefined;
  const url = new URL(target);
  url.searchParams.set('PayId', payment.payId);
  return url.toString();
}

/**
 * Authenticates (3-D Secure) and authorizes a confirmed hosted payment, then sends the browser on: to the challenge
 * when the issuer asks for one, else to the merchant's return URL with `PayId`.
 */
export async function confirmHostedPayment(
  deps: { hosted: HostedPaymentService; payments: PaymentService },
  request: FastifyRequest,
  reply: FastifyReply,
  payment: Payment,
  language: Language,
  onCardGone: () => Promise<FastifyReply>,
): Promise<FastifyReply> {
  const card = await deps.hosted.cardOf(payment);
  if (!card) return onCardGone();
  const { merchant } = await deps.hosted.paymentForPage(payment.payId);
  const result = await deps.payments.authenticateAndAuthorize(merchant, payment, card, {
    channel: 'BROWSER',
    browserInfo: browserInfoOf(request, language),
    challengePreference: 'NO_PREFERENCE',
  });
  const target = finalRedirect(result);
  return target ? reply.redirect(target, 303) : reply.status(500).send();
}
