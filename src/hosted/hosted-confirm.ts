import type { FastifyRequest } from 'fastify';
import type { Merchant } from '../domain/merchants/merchant.js';
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

/** What happens after the cardholder confirmed: a page to go to, or the ended payment. */
export type ConfirmOutcome =
  | { kind: 'REDIRECT'; url: string }
  | { kind: 'ENDED'; payment: Payment }
  | { kind: 'CARD_GONE' };

/**
 * Hands a confirmed hosted payment to 3-D Secure in Kassa's pages (3DS Method, AReq, challenge): the browser goes to
 * the method page; a card outside every 3-D Secure range is authorized at once and the payment has ended.
 */
export async function confirmHostedPayment(
  deps: { hosted: HostedPaymentService; payments: PaymentService },
  request: FastifyRequest,
  merchant: Merchant,
  payment: Payment,
  language: Language,
): Promise<ConfirmOutcome> {
  const card = await deps.hosted.cardOf(payment);
  if (!card) return { kind: 'CARD_GONE' };
  // 3-D Secure in Kassa's own pages: the 3DS Method (hidden iframe), the AReq, a challenge if the issuer wants one.
  const started = await deps.payments.startBrowserAuthentication(merchant, payment, card, {
    browserInfo: browserInfoOf(request, language),
    challengePreference: 'NO_PREFERENCE',
  });
  if (started.status === 'PENDING' && started.redirectHref) return { kind: 'REDIRECT', url: started.redirectHref };
  return { kind: 'ENDED', payment: started };
}
