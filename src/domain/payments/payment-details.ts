import type { Payment } from './payment.js';
import { describeResponseCode } from './response-codes.js';

/** A money amount on the wire: `value` and the `*Value` totals in ISO 4217 minor units. */
export interface WireAmount {
  value: number;
  currency: string;
  capturedValue: number;
  refundedValue: number;
}

/**
 * The payment details every create, read and follow-up answers, and every payment.* event carries
 * (DESIGN.md §4 "Payment details"). `surcharge` and `totalAmount` are binding (spec §1.10).
 */
export function toPaymentDetails(p: Payment, baseUrl: string): Record<string, unknown> {
  const total = (a: number, b: number) => a + b;
  return {
    payId: p.payId,
    transId: p.transId,
    ...(p.refNr !== undefined && { refNr: p.refNr }),
    merchantId: p.merchantId,
    status: p.status,
    responseCode: p.responseCode,
    responseDescription: describeResponseCode(p.responseCode),
    amount: { value: p.value, currency: p.currency, capturedValue: p.capturedValue, refundedValue: p.refundedValue },
    surcharge: {
      status: p.surcharge.status,
      reason: p.surcharge.reason,
      value: p.surcharge.value,
      currency: p.currency,
      capturedValue: p.surchargeCapturedValue,
      refundedValue: p.surchargeRefundedValue,
    },
    totalAmount: {
      value: total(p.value, p.surcharge.value),
      currency: p.currency,
      capturedValue: total(p.capturedValue, p.surchargeCapturedValue),
      refundedValue: total(p.refundedValue, p.surchargeRefundedValue),
    },
    captureMethod: { type: p.captureMethod },
    paymentMethods: {
      type: 'CARD',
      integrationType: p.integrationType,
      ...(p.card && {
        card: {
          brand: p.card.brand,
          bin: p.card.bin,
          last4: p.card.last4,
          expiryDate: p.card.expiryDate,
          ...(p.card.product && { product: p.card.product }),
          ...(p.card.issuerCountry && { issuerCountry: p.card.issuerCountry }),
        },
      }),
    },
    channel: p.channel,
    ...(p.threeDS && {
      threeDS: {
        threeDSServerTransID: p.threeDS.threeDSServerTransID,
        transStatus: p.threeDS.transStatus,
        ...(p.threeDS.transStatusReason && { transStatusReason: p.threeDS.transStatusReason }),
        ...(p.threeDS.eci && { eci: p.threeDS.eci }),
        messageVersion: p.threeDS.messageVersion,
        liabilityShift: p.threeDS.liabilityShift,
      },
    }),
    ...(p.language && { language: p.language }),
    ...(p.order && { order: p.order }),
    ...(p.customerInfo && { customerInfo: p.customerInfo }),
    ...(p.urls && { urls: p.urls }),
    ...(p.metadata && { metadata: p.metadata }),
    operations: p.operations.map((op) => ({
      xId: op.xId,
      type: op.type,
      ...(op.refNr !== undefined && { refNr: op.refNr }),
      amount: { value: op.value, currency: p.currency },
      totalAmount: { value: op.value + op.surchargeValue, currency: p.currency },
      status: op.status,
      responseCode: op.responseCode,
      creationDate: op.creationDate.toISOString(),
    })),
    creationDate: p.creationDate.toISOString(),
    _links: {
      self: { href: `${baseUrl}/api/v1/payments/getByPayId/${p.payId}` },
      // DESIGN.md §4: a PENDING payment waiting for the cardholder's browser links to the Kassa page to open.
      ...(p.status === 'PENDING' && p.redirectHref !== undefined && { redirect: { href: p.redirectHref } }),
    },
  };
}
