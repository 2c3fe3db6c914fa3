import type {
  CreatePaymentRequest,
  CreateSessionRequest,
  BrowserInfo as WireBrowserInfo,
} from '../../contracts/create-request.js';
import type { CreateSessionCommand } from '../../domain/payments/hosted-payment-service.js';
import type { InformationalFields } from '../../domain/payments/payment.js';
import type { BrowserInfo, CreatePaymentCommand, SdkInfo } from '../../domain/payments/payment-request.js';

/** A wire amount value (integer, or digits-only string: paygate-v2-wire.md §2) in minor units. */
export const amountValue = (value: number | string): number => (typeof value === 'number' ? value : Number(value));

/** `browserInfo` for the AReq: `timeZoneOffset` (string or number on the wire) in minutes. */
function browserInfoOf(b: WireBrowserInfo, challengeWindowSize: BrowserInfo['challengeWindowSize']): BrowserInfo {
  const { timeZoneOffset, colorDepth, ...rest } = b;
  return {
    ...rest,
    ...(colorDepth !== undefined && { colorDepth }),
    ...(timeZoneOffset !== undefined && { timeZoneOffset: Number(timeZoneOffset) }),
    ...(challengeWindowSize !== undefined && { challengeWindowSize }),
  };
}

/**
 * The informational members of a create request, stored as sent and echoed in the details (wire §2, §4). Never card
 * data: `paymentMethods.card` contributes only its brands, look and event token.
 */
export function informationalOf(body: CreatePaymentRequest | CreateSessionRequest): InformationalFields {
  const { value: _value, currency: _currency, ...amountTotals } = body.amount;
  const card = body.paymentMethods?.card;
  const cardInfo = card && {
    ...(card.subType && { subType: card.subType }),
    ...(card.template && { template: card.template }),
    ...('eventToken' in card && card.eventToken !== undefined && { eventToken: card.eventToken }),
  };
  const info: InformationalFields = {
    externalIntegrationId: body.externalIntegrationId,
    requestId: body.requestId,
    statementDescriptor: body.statementDescriptor,
    simulationMode: body.simulationMode,
    remittanceInfo: body.remittanceInfo,
    referencePayId: body.referencePayId,
    allowedPaymentMethod: body.allowedPaymentMethod,
    partialPayment: body.partialPayment,
    expirationTime: body.expirationTime,
    amountTotals: Object.keys(amountTotals).length > 0 ? amountTotals : undefined,
    captureMethod: body.captureMethod,
    template: body.template,
    credentialOnFile: body.credentialOnFile,
    billingAddress: body.billingAddress,
    shipping: body.shipping,
    fraudData: body.fraudData,
    paymentFacilitator: body.paymentFacilitator,
    device: body.device,
    browserInfo: body.browserInfo && {
      ...body.browserInfo,
      ...(body.browserInfo.timeZoneOffset !== undefined && { timeZoneOffset: String(body.browserInfo.timeZoneOffset) }),
    },
    card: cardInfo && Object.keys(cardInfo).length > 0 ? cardInfo : undefined,
  };
  return Object.fromEntries(Object.entries(info).filter(([, v]) => v !== undefined)) as InformationalFields;
}

/** Maps a validated `POST /payments` body onto the domain command. */
export function toCreatePaymentCommand(merchantId: string, body: CreatePaymentRequest): CreatePaymentCommand {
  const card = body.paymentMethods.card;
  const policy = card?.threeDsPolicy;
  const sdk = policy?.sdkInfo;
  const sdkInfo: SdkInfo | undefined = sdk && { ...sdk, sdkMaxTimeout: Number(sdk.sdkMaxTimeout) };
  return {
    merchantId,
    transId: body.transId,
    refNr: body.refNr,
    amount: { value: amountValue(body.amount.value), currency: body.amount.currency },
    captureMethod: body.captureMethod?.type ?? 'AUTOMATIC',
    delayedHours: body.captureMethod?.delayed?.delayedHours,
    integrationType: body.paymentMethods.integrationType,
    channel: body.channel ?? 'ECOM',
    language: body.language,
    card:
      card?.number !== undefined && card.expiryDate !== undefined
        ? {
            number: card.number,
            expiryDate: card.expiryDate,
            securityCode: card.securityCode,
            cardholderName: card.cardHolderName,
            brand: card.brand,
          }
        : undefined,
    challengePreference: policy?.challengePreference ?? 'NO_PREFERENCE',
    threeDsPolicy: policy && { skip: policy.skip, exemption: policy.exemption },
    browserAuthentication: policy?.browserAuthentication,
    browserInfo: body.browserInfo && browserInfoOf(body.browserInfo, policy?.challengeWindowSize),
    sdkInfo,
    expirationTime: body.expirationTime,
    prefillInfo: card?.prefillInfo,
    order: body.order,
    customerInfo: body.customerInfo,
    urls: body.urls,
    metadata: body.metadata,
    informational: informationalOf(body),
  };
}

/** Maps a validated `POST /payments/sessions` body onto the domain command. */
export function toCreateSessionCommand(merchantId: string, body: CreateSessionRequest): CreateSessionCommand {
  return {
    merchantId,
    transId: body.transId,
    refNr: body.refNr,
    amount: { value: amountValue(body.amount.value), currency: body.amount.currency },
    captureMethod: body.captureMethod?.type ?? 'AUTOMATIC',
    delayedHours: body.captureMethod?.delayed?.delayedHours,
    language: body.language,
    threeDsPolicy: body.paymentMethods?.card?.threeDsPolicy,
    expirationTime: body.expirationTime,
    prefillInfo: body.paymentMethods?.card?.prefillInfo,
    order: body.order,
    customerInfo: body.customerInfo,
    urls: body.urls,
    metadata: body.metadata,
    expiresInSeconds: body.expiresInSeconds,
    informational: informationalOf(body),
  };
}
