import type { FastifyRequest } from 'fastify';
import type { BrowserInfo } from '../domain/payments/payment-request.js';
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
