import type { CreatePaymentCommand } from '../../../src/domain/payments/payment-request.js';
import { browserInfo } from '../threeds/three-ds-fixtures.js';

/**
 * The service-level command of a DIRECT ECOM payment of 100.00 DKK (10,000 minor units), AUTOMATIC capture, with the
 * card `pan` (expiry 2030-12, CVC 123), a browser for 3-D Secure and a random transId; `extra` overrides any member.
 */
export function directCommand(
  merchantId: string,
  pan: string,
  extra: Partial<CreatePaymentCommand> = {},
): CreatePaymentCommand {
  return {
    merchantId,
    transId: `t-${Math.random().toString(36).slice(2, 12)}`,
    amount: { value: 10_000, currency: 'DKK' },
    captureMethod: 'AUTOMATIC',
    integrationType: 'DIRECT',
    channel: 'ECOM',
    card: { number: pan, expiryDate: '203012', securityCode: '123' },
    challengePreference: 'NO_PREFERENCE',
    browserInfo,
    ...extra,
  };
}
