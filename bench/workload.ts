/** The requests the benchmark sends. */
import { luhnCheckDigit } from '../src/domain/payments/card-checks.js';

export const BENCH_MERCHANT_ID = 'bench';

/** A Visa test card the simulators authenticate frictionlessly (3-D Secure Y) and authorize. */
function pan(scenario: string): string {
  const p = `40000000000${scenario}`;
  return p + luhnCheckDigit(p);
}
const CARD = { number: pan('1000'), expiryDate: '203012', securityCode: '123' };

/** POST /api/v1/payments body: DIRECT, browser channel, frictionless 3-D Secure, AUTOMATIC capture (the default). */
export function directPaymentBody(transId: string): string {
  return JSON.stringify({
    transId,
    amount: { value: 12_500, currency: 'DKK' },
    paymentMethods: { type: 'CARD', integrationType: 'DIRECT', card: CARD },
    browserInfo: { acceptHeaders: 'text/html', javaScriptEnabled: true, language: 'da', userAgent: 'bench' },
  });
}

/** POST /api/v1/payments/sessions body: a hosted payment page session. */
export function sessionBody(transId: string): string {
  return JSON.stringify({
    transId,
    amount: { value: 12_500, currency: 'DKK' },
    urls: { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' },
  });
}
