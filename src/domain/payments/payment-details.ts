import type {
  DetailsAuthenticationData,
  DetailsCard,
  DetailsOperation,
  PaymentDetails,
} from '../../contracts/payment-details.js';
import { isoTime } from '../ports/clock.js';
import { authenticationTypeName } from '../threeds/authentication-response.js';
import type { CardSummary, Payment, PaymentOperation, ThreeDSResult } from './payment.js';
import { describeResponseCode } from './response-codes.js';

/**
 * The merchant API prefix of the `_links` in payment.* event bodies, which answer no request: the seed's (spec §4). An
 * answer links under its request's own prefix (`/api/v1` or Paygate's `/api/v2`, paygate-v2-wire.md §1).
 */
export const EVENT_API_PREFIX = '/api/v1';

/**
 * The payment in the wire contract's shape (`contracts/payment-details.ts`, paygate-v2-wire.md §4): what every create,
 * read and follow-up answers and every payment.* event carries. A pure mapper typed by the contract; it lives in the
 * domain because the domain writes the event bodies (docs/architecture.md). `surcharge` and `totalAmount` are binding
 * (spec §1.10). Amounts in minor units. `apiUrl`: the merchant API's base URL with its prefix
 * (`https://kassa.example/api/v2`), that of the request being answered, else {@link EVENT_API_PREFIX}'s.
 */
export function toPaymentDetails(p: Payment, apiUrl: string): PaymentDetails {
  const info = p.informational ?? {};
  const authorization = p.operations.find((op) => op.type === 'AUTHORIZATION' && op.status === 'OK');
  return {
    payId: p.payId,
    transId: p.transId,
    ...(authorization && { xId: authorization.xId }),
    ...(p.refNr !== undefined && { refNr: p.refNr }),
    ...(info.externalIntegrationId !== undefined && { externalIntegrationId: info.externalIntegrationId }),
    ...(info.requestId !== undefined && { requestId: info.requestId }),
    merchantId: p.merchantId,
    status: p.status,
    responseCode: p.responseCode,
    responseDescription: describeResponseCode(p.responseCode),
    amount: {
      value: p.value,
      currency: p.currency,
      capturedValue: p.capturedValue,
      refundedValue: p.refundedValue,
      ...info.amountTotals,
    },
    surcharge: {
      status: p.surcharge.status,
      reason: p.surcharge.reason,
      value: p.surcharge.value,
      currency: p.currency,
      capturedValue: p.surchargeCapturedValue,
      refundedValue: p.surchargeRefundedValue,
    },
    totalAmount: {
      value: p.value + p.surcharge.value,
      currency: p.currency,
      capturedValue: p.capturedValue + p.surchargeCapturedValue,
      refundedValue: p.refundedValue + p.surchargeRefundedValue,
    },
    captureMethod: info.captureMethod ?? { type: p.captureMethod },
    paymentMethods: {
      type: 'CARD',
      integrationType: p.integrationType,
      ...(p.card && { card: cardDetails(p.card, p.threeDS) }),
      ...(info.card?.subType && { subType: info.card.subType }),
    },
    channel: p.channel,
    ...(p.language && { language: p.language }),
    ...(info.statementDescriptor !== undefined && { statementDescriptor: info.statementDescriptor }),
    ...(info.simulationMode !== undefined && { simulationMode: info.simulationMode }),
    ...(info.expirationTime !== undefined && { expirationTime: info.expirationTime }),
    ...(info.partialPayment !== undefined && { partialPayment: info.partialPayment }),
    ...(info.remittanceInfo !== undefined && { remittanceInfo: info.remittanceInfo }),
    ...(info.referencePayId !== undefined && { referencePayId: info.referencePayId }),
    ...(info.allowedPaymentMethod && { allowedPaymentMethod: info.allowedPaymentMethod }),
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
    ...(info.template && { template: info.template }),
    ...(p.order && { order: p.order }),
    ...(p.customerInfo && { customerInfo: p.customerInfo }),
    ...(info.billingAddress && { billingAddress: info.billingAddress }),
    ...(info.shipping && { shipping: info.shipping }),
    ...(info.fraudData && { fraudData: info.fraudData }),
    ...(info.paymentFacilitator && { paymentFacilitator: info.paymentFacilitator }),
    ...(info.device && { device: info.device }),
    ...(info.browserInfo && { browserInfo: info.browserInfo as PaymentDetails['browserInfo'] }),
    ...(info.credentialOnFile && { credentialOnFile: info.credentialOnFile }),
    ...(p.urls && { urls: p.urls }),
    ...(p.metadata && { metadata: p.metadata as Record<string, string> }),
    operations: p.operations.map((op) => operationDetails(op, p.currency)),
    creationDate: isoTime(p.creationDate),
    _links: {
      self: { href: `${apiUrl}/payments/getByPayId/${p.payId}` },
      // DESIGN.md §4: a PENDING payment waiting for the cardholder's browser links to the Kassa page to open.
      ...(p.status === 'PENDING' && p.redirectHref !== undefined && { redirect: { href: p.redirectHref } }),
    },
  };
}

/** One operation of the details. Amounts in minor units. */
export function operationDetails(op: PaymentOperation, currency: string): DetailsOperation {
  return {
    xId: op.xId,
    type: op.type,
    ...(op.transId !== undefined && { transId: op.transId }),
    ...(op.refNr !== undefined && { refNr: op.refNr }),
    amount: { value: op.value, currency },
    totalAmount: { value: op.value + op.surchargeValue, currency },
    status: op.status,
    responseCode: op.responseCode,
    creationDate: isoTime(op.creationDate),
  };
}

/** The BIN range a prefix stands for, as 16-digit bounds: `40000000` → 4000000000000000 … 4000000099999999. */
function accountRange(bin: string): { accountRangeLow: string; accountRangeHigh: string } {
  return { accountRangeLow: bin.padEnd(16, '0'), accountRangeHigh: bin.padEnd(16, '9') };
}

/**
 * `paymentMethods.card.authenticationData` in Paygate's names (wire §4: `…Id`, not EMVCo's `…ID`): the EMV 3DS result
 * Kassa keeps, each member absent when unknown. acsChallengeMandated and acsDecConInd are booleans and
 * authenticationType is spelled out (static, dynamic, oob, decoupled) as in the Authentication Notification
 * (spec §2.1); messageType names the message the result came from (ARes, or RReq after a challenge).
 */
function authenticationData(threeDS: ThreeDSResult): DetailsAuthenticationData {
  const type = threeDS.authenticationType && authenticationTypeName(threeDS.authenticationType, threeDS.messageVersion);
  return {
    threeDSServerTransId: threeDS.threeDSServerTransID,
    ...(threeDS.acsChallengeMandated !== undefined && { acsChallengeMandated: threeDS.acsChallengeMandated }),
    ...(threeDS.acsDecConInd !== undefined && { acsDecConInd: threeDS.acsDecConInd }),
    ...(threeDS.acsOperatorID && { acsOperatorId: threeDS.acsOperatorID }),
    ...(threeDS.acsReferenceNumber && { acsReferenceNumber: threeDS.acsReferenceNumber }),
    ...(threeDS.acsTransID && { acsTransId: threeDS.acsTransID }),
    ...(type && { authenticationType: type }),
    ...(threeDS.authenticationValue && { authenticationValue: threeDS.authenticationValue }),
    ...(threeDS.cardholderInfo && { cardholderInfo: threeDS.cardholderInfo }),
    ...(threeDS.dsReferenceNumber && { dsReferenceNumber: threeDS.dsReferenceNumber }),
    ...(threeDS.dsTransID && { dsTransId: threeDS.dsTransID }),
    ...(threeDS.eci && { eci: threeDS.eci }),
    ...(threeDS.messageType && { messageType: threeDS.messageType }),
    messageVersion: threeDS.messageVersion,
    ...(threeDS.sdkTransID && { sdkTransId: threeDS.sdkTransID }),
    transStatus: threeDS.transStatus,
    ...(threeDS.transStatusReason && { transStatusReason: threeDS.transStatusReason }),
    ...(threeDS.whiteListStatus && { whiteListStatus: threeDS.whiteListStatus }),
    ...(threeDS.whiteListStatusSource && { whiteListStatusSource: threeDS.whiteListStatusSource }),
  };
}

/**
 * `paymentMethods.card` in Paygate's names (wire §4): never the PAN nor the CVC. `authenticationData` and
 * `versioningData` carry the EMV 3DS result Kassa keeps (ARes, or RReq after a challenge).
 */
function cardDetails(card: CardSummary, threeDS: ThreeDSResult | undefined): DetailsCard {
  return {
    // Always a string: Paygate clients read it unguarded (the Magento 2 plugin's return and refund), "" when the
    // cardholder typed no name on the hosted card step.
    cardHolderName: card.cardholderName ?? '',
    first6Digits: card.bin.slice(0, 6),
    last4Digits: card.last4,
    expiryDate: card.expiryDate,
    brand: card.brand,
    ...(card.product && { product: card.product }),
    ...(card.funding && { type: card.funding.toLowerCase() as DetailsCard['type'] }),
    ...(card.issuerCountry && { country: card.issuerCountry }),
    ...(card.pseudoCardNumber && { pseudoCardNumber: card.pseudoCardNumber }),
    ...(card.schemeReferenceId && { schemeReferenceId: card.schemeReferenceId }),
    bin: { accountBin: card.bin, ...accountRange(card.bin) },
    ...(threeDS && {
      authenticationData: authenticationData(threeDS),
      versioningData: { threeDSServerTransId: threeDS.threeDSServerTransID },
    }),
  };
}
