import { luhnCheckDigit } from '../../src/domain/payments/card-checks.js';

/** A sandbox test PAN (DESIGN.md §6): 8-digit BIN + 3 free digits + 4 scenario digits + Luhn check digit. */
export function testPan(bin: string, scenario: string, free = '000'): string {
  const partial = `${bin}${free}${scenario}`;
  return partial + luhnCheckDigit(partial);
}

/** A minimal valid browserInfo for DIRECT browser payments (Paygate's names and types: timeZoneOffset a string). */
export const BROWSER_INFO = {
  acceptHeaders: 'text/html,application/xhtml+xml',
  javaEnabled: false,
  javaScriptEnabled: true,
  language: 'da-DK',
  colorDepth: 24,
  screenHeight: 1080,
  screenWidth: 1920,
  timeZoneOffset: '-60',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) KassaTest/1.0',
  ipAddress: '192.0.2.10',
} as const;

/** `paymentMethods.card.threeDsPolicy` of the test payments: Kassa's challengeWindowSize extension included. */
export const THREE_DS_POLICY = { challengePreference: 'NO_PREFERENCE', challengeWindowSize: '05' } as const;

/**
 * A DIRECT payment request body in Paygate's names (paygate-v2-wire.md §2). `threeDsPolicy` goes to
 * `paymentMethods.card.threeDsPolicy` (merged over THREE_DS_POLICY); other overrides replace top-level members.
 */
export function directPayment(
  pan: string,
  overrides: Record<string, unknown> = {},
  threeDsPolicy: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    transId: `order-${Math.random().toString(36).slice(2, 12)}`,
    amount: { value: 12_500, currency: 'DKK' },
    paymentMethods: {
      type: 'CARD',
      integrationType: 'DIRECT',
      card: {
        number: pan,
        expiryDate: '203012',
        securityCode: '123',
        cardHolderName: 'Test Cardholder',
        threeDsPolicy: { ...THREE_DS_POLICY, ...threeDsPolicy },
      },
    },
    browserInfo: BROWSER_INFO,
    ...overrides,
  };
}
