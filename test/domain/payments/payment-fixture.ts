import type { Merchant } from '../../../src/domain/merchants/merchant.js';
import type { Payment, PaymentStatus } from '../../../src/domain/payments/payment.js';
import type { CreatePaymentCommand } from '../../../src/domain/payments/payment-request.js';

/**
 * A stored-looking payment for pure domain tests. Amounts in minor units; `surcharge` sets an APPLIED surcharge
 * (hosted surcharged payments are built elsewhere; follow-ups only read the stored values).
 */
export function paymentFixture(
  overrides: Partial<Payment> & { surchargeValue?: number; status?: PaymentStatus } = {},
): Payment {
  const { surchargeValue = 0, ...rest } = overrides;
  const at = new Date('2026-11-21T10:00:00.000Z');
  return {
    payId: 'a'.repeat(32),
    merchantId: 'm1',
    transId: 'order-1',
    status: 'AUTHORIZED',
    responseCode: '00000000',
    currency: 'DKK',
    value: 10_000,
    capturedValue: 0,
    refundedValue: 0,
    surcharge:
      surchargeValue > 0
        ? { status: 'APPLIED', reason: 'COMMERCIAL_CARD', value: surchargeValue }
        : { status: 'NOT_OFFERED', reason: 'DIRECT_INTEGRATION', value: 0 },
    surchargeCapturedValue: 0,
    surchargeRefundedValue: 0,
    captureMethod: 'MANUAL',
    integrationType: 'DIRECT',
    channel: 'ECOM',
    operations: [
      {
        xId: 'b'.repeat(32),
        type: 'AUTHORIZATION',
        value: overrides.value ?? 10_000,
        surchargeValue,
        status: 'OK',
        responseCode: '00000000',
        creationDate: at,
      },
    ],
    creationDate: at,
    updatedAt: at,
    ...rest,
  };
}

/** A HOSTED payment command of 40.00 DKK, MANUAL capture, waiting on its card step once created; `extra` overrides. */
export function hostedPaymentCommand(
  merchant: Pick<Merchant, 'merchantId'>,
  extra: Partial<CreatePaymentCommand> = {},
): CreatePaymentCommand {
  return {
    merchantId: merchant.merchantId,
    transId: `h-${Math.random().toString(36).slice(2)}`,
    amount: { value: 4_000, currency: 'DKK' },
    captureMethod: 'MANUAL',
    integrationType: 'HOSTED',
    channel: 'ECOM',
    challengePreference: 'NO_PREFERENCE',
    urls: { return: 'https://shop.example/ok' },
    ...extra,
  };
}
