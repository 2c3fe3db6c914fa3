import { KassaError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import type { CardSummary, Payment } from './payment.js';
import { payIdFromUuid } from './payment.js';
import { linkTtlMs, type PaymentServiceDeps } from './payment-deps.js';
import type { CardInput, CreatePaymentCommand } from './payment-request.js';

/**
 * Stores a new DIRECT payment, PENDING (60000001), before anything is called out (persist first, DESIGN.md §1).
 * `card` is what Kassa keeps of the card (never the number), absent when there is none to describe.
 * `keep`: the card of an initial stored-credential payment, written encrypted to the card vault (CardVault.seal;
 * number, expiry and name, never the security code) in the intent's own transaction — still one durable write — and
 * deleted with the payment's result (recordFinalPayment). Only so can AuthorizationRecovery store the card of an
 * approval whose answer was lost; it is kept at most the vault's lifetime (`linkTtlMs`, 30 min by default).
 * @throws KassaError TRANS_ID_IN_USE.
 */
export async function insertPendingDirectPayment(
  deps: Pick<PaymentServiceDeps, 'store' | 'clock' | 'ids' | 'cardVault' | 'threeDSLinkTtlMs'>,
  merchant: Merchant,
  cmd: CreatePaymentCommand,
  card: CardSummary | undefined,
  keep?: CardInput,
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
  const inUse = () =>
    new KassaError('TRANS_ID_IN_USE', `transId ${cmd.transId} belongs to a payment that has not failed`);
  if (keep === undefined) {
    if ((await deps.store.payments.insert(payment)) === 'TRANS_ID_IN_USE') throw inUse();
    return payment;
  }
  const { number, expiryDate, cardholderName } = keep;
  const sealed = await deps.cardVault.seal(
    payment.payId,
    { number, expiryDate, ...(cardholderName !== undefined && { cardholderName }) },
    new Date(now.getTime() + linkTtlMs(deps)),
  );
  await deps.store.transaction(async (tx) => {
    if ((await tx.payments.insert(payment)) === 'TRANS_ID_IN_USE') throw inUse(); // rolls the transaction back
    await tx.pendingCards.put(sealed);
  });
  return payment;
}
