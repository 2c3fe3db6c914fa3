import { KassaError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import type { CardSummary, Payment } from './payment.js';
import { payIdFromUuid } from './payment.js';
import type { PaymentServiceDeps } from './payment-deps.js';
import type { CreatePaymentCommand } from './payment-request.js';

/**
 * Stores a new DIRECT payment, PENDING (60000001), before anything is called out (persist first, DESIGN.md §1).
 * `card` is what Kassa keeps of the card (never the number), absent when there is none to describe.
 * @throws KassaError TRANS_ID_IN_USE.
 */
export async function insertPendingDirectPayment(
  deps: Pick<PaymentServiceDeps, 'store' | 'clock' | 'ids'>,
  merchant: Merchant,
  cmd: CreatePaymentCommand,
  card: CardSummary | undefined,
): Promise<Payment> {
  const now = deps.clock.now();
  const payment: Payment = {
    payId: payIdFromUuid(deps.ids.uuid()),
    merchantId: merchant.merchantId,
    transId: cmd.transId,
    refNr: cmd.refNr,
    status: 'PENDING',
    responseCode: '60000001',
    currency: cmd.amount.currency,
    value: cmd.amount.value,
    capturedValue: 0,
    refundedValue: 0,
    surcharge: { status: 'NOT_OFFERED', reason: 'DIRECT_INTEGRATION', value: 0 },
    surchargeCapturedValue: 0,
    surchargeRefundedValue: 0,
    captureMethod: cmd.captureMethod,
    integrationType: 'DIRECT',
    channel: cmd.channel,
    language: cmd.language,
    ...(card && { card }),
    order: cmd.order,
    customerInfo: cmd.customerInfo,
    urls: cmd.urls,
    metadata: cmd.metadata,
    informational: cmd.informational,
    operations: [],
    creationDate: now,
    updatedAt: now,
  };
  if ((await deps.store.payments.insert(payment)) === 'TRANS_ID_IN_USE') {
    throw new KassaError('TRANS_ID_IN_USE', `transId ${cmd.transId} belongs to a payment that has not failed`);
  }
  return payment;
}
