import { type Static, Type } from 'typebox';
import {
  BillingAddress,
  BrowserInfo,
  CredentialOnFile,
  CustomerInfo,
  Device,
  FraudData,
  Order,
  PaymentFacilitator,
  Shipping,
  Template,
} from './create-request.js';
import { Currency, DateTime, Link, Metadata, Minor, PayId } from './primitives.js';

/**
 * The payment details (`paygate-v2-wire.md` §4): what `getByPayId`, `getByTransId`, the create calls, the follow-up
 * answers (`payment`) and the `payment.*` events carry. Every member has the JSON kind a typed client (the Go adapter's
 * `NexiPaymentQueryResponse`) decodes it into; Kassa's additions (`surcharge`, `totalAmount`, `threeDS`, `operations`,
 * `_links`) change no Paygate member's type.
 */

const O = Type.Optional;
const Str = () => O(Type.String());

/** Payment status (DESIGN.md §4): PENDING → AUTHORIZED → OK, or FAILED, or REVERSED. */
export const PaymentStatus = Type.Enum(['PENDING', 'AUTHORIZED', 'OK', 'FAILED', 'REVERSED']);

/** The 8-digit response code (`docs/response-codes.md`). */
export const ResponseCode = Type.String({ pattern: '^[0-9]{8}$' });

/** `amount` of the details: the merchant's amount (no surcharge) and its informational totals, minor units. */
export const DetailsAmount = Type.Object({
  value: Minor,
  currency: Currency,
  capturedValue: Minor,
  refundedValue: Minor,
  taxTotal: O(Minor),
  netItemTotal: O(Minor),
  netShippingAmount: O(Minor),
  grossShippingAmount: O(Minor),
  netDiscount: O(Minor),
  grossDiscount: O(Minor),
});

/** `surcharge`: the binding card fee (spec §1.10), minor units. */
export const DetailsSurcharge = Type.Object({
  status: Type.Enum(['APPLIED', 'NOT_OFFERED']),
  reason: Type.String(),
  value: Minor,
  currency: Currency,
  capturedValue: Minor,
  refundedValue: Minor,
});

/** `totalAmount`: amount + surcharge, what the cardholder pays, minor units. */
export const DetailsTotalAmount = Type.Object({
  value: Minor,
  currency: Currency,
  capturedValue: Minor,
  refundedValue: Minor,
});

/** `paymentMethods.card.bin`: the card's BIN range (an object: a string breaks typed clients). */
export const CardBin = Type.Object({ accountBin: Str(), accountRangeLow: Str(), accountRangeHigh: Str() });

/** `paymentMethods.card.authenticationData`: the EMV 3DS result fields (ARes, or RReq after a challenge). */
export const AuthenticationData = Type.Object({
  threeDSServerTransId: Str(),
  acsChallengeMandated: O(Type.Boolean()),
  acsDecConInd: O(Type.Boolean()),
  acsOperatorId: Str(),
  acsReferenceNumber: Str(),
  acsTransId: Str(),
  authenticationType: Str(),
  authenticationValue: Str(),
  cardholderInfo: Str(),
  dsReferenceNumber: Str(),
  dsTransId: Str(),
  eci: Str(),
  messageType: Str(),
  messageVersion: Str(),
  sdkTransId: Str(),
  transStatus: Str(),
  transStatusReason: Str(),
  whiteListStatus: Str(),
  whiteListStatusSource: Str(),
});

/** `paymentMethods.card.versioningData`: the protocol versions of the 3DS transaction. */
export const VersioningData = Type.Object({
  threeDSServerTransId: Str(),
  acsStartProtocolVersion: Str(),
  acsEndProtocolVersion: Str(),
  dsStartProtocolVersion: Str(),
  dsEndProtocolVersion: Str(),
  threeDSMethodURL: Str(),
});

/** `paymentMethods.card` of the details: never the full number nor the security code. */
export const DetailsCard = Type.Object({
  cardHolderName: Str(),
  first6Digits: Str(),
  last4Digits: Type.String(),
  expiryDate: Type.String({ description: 'YYYYMM' }),
  brand: Type.String(),
  product: Str(),
  type: O(Type.Enum(['credit', 'debit', 'prepaid'])),
  country: Str(),
  issuer: Str(),
  bin: CardBin,
  pseudoCardNumber: O(
    Type.String({ pattern: '^[0-9]{16}$', description: 'The stored card (credentialOnFile): pay with it later' }),
  ),
  schemeReferenceId: O(
    Type.String({
      description: "The card network's transaction id (Visa Transaction Identifier, Mastercard Trace ID)",
    }),
  ),
  authenticationData: O(AuthenticationData),
  versioningData: O(VersioningData),
});

/** `paymentMethods` of the details. */
export const DetailsPaymentMethods = Type.Object({
  type: Type.Literal('CARD'),
  integrationType: Type.Enum(['DIRECT', 'HOSTED']),
  card: O(DetailsCard),
  subType: O(Type.Array(Type.String())),
});

/** `threeDS`: Kassa's summary of the 3-D Secure outcome (EMVCo names). */
export const DetailsThreeDS = Type.Object({
  threeDSServerTransID: Type.String(),
  transStatus: Type.String(),
  transStatusReason: Str(),
  eci: Str(),
  messageVersion: Type.String(),
  liabilityShift: Type.Boolean(),
});

/** One operation (authorization, capture, refund, reversal) of the payment. */
export const DetailsOperation = Type.Object({
  xId: Type.String(),
  type: Type.Enum(['AUTHORIZATION', 'CAPTURE', 'REFUND', 'REVERSAL']),
  transId: Str(),
  refNr: Str(),
  amount: Type.Object({ value: Minor, currency: Currency }),
  totalAmount: Type.Object({ value: Minor, currency: Currency }),
  status: Type.Enum(['OK', 'FAILED', 'PENDING']),
  responseCode: ResponseCode,
  creationDate: DateTime,
});

/**
 * `browserInfo` as stored: `timeZoneOffset` always a string of minutes (the Go client decodes a `*string`). Every
 * member optional: a session's browserInfo may hold any of them (SessionBrowserInfo), and its payments echo it.
 */
export const DetailsBrowserInfo = Type.Partial(Type.Object({ ...BrowserInfo.properties, timeZoneOffset: Str() }));

/** The payment details (wire §4). */
export const PaymentDetails = Type.Object({
  payId: PayId,
  transId: Type.String(),
  xId: Str(),
  refNr: Str(),
  externalIntegrationId: Str(),
  requestId: Str(),
  merchantId: Type.String(),
  status: PaymentStatus,
  responseCode: ResponseCode,
  responseDescription: Type.String(),
  amount: DetailsAmount,
  surcharge: DetailsSurcharge,
  totalAmount: DetailsTotalAmount,
  captureMethod: Type.Object({
    type: Type.Enum(['AUTOMATIC', 'MANUAL', 'DELAYED']),
    delayed: O(Type.Object({ delayedHours: Type.Integer() })),
  }),
  paymentMethods: DetailsPaymentMethods,
  channel: Type.String(),
  language: Str(),
  statementDescriptor: Str(),
  simulationMode: Str(),
  expirationTime: O(DateTime),
  partialPayment: O(Type.Boolean()),
  remittanceInfo: Str(),
  referencePayId: Str(),
  allowedPaymentMethod: O(Type.Array(Type.String())),
  threeDS: O(DetailsThreeDS),
  template: O(Template),
  order: O(Order),
  customerInfo: O(CustomerInfo),
  billingAddress: O(BillingAddress),
  shipping: O(Shipping),
  fraudData: O(FraudData),
  paymentFacilitator: O(PaymentFacilitator),
  device: O(Device),
  browserInfo: O(DetailsBrowserInfo),
  credentialOnFile: O(CredentialOnFile),
  urls: O(Type.Object({ return: Str(), cancel: Str(), webhook: Str(), appRedirect: Str() })),
  metadata: O(Metadata),
  operations: Type.Array(DetailsOperation),
  creationDate: DateTime,
  _links: Type.Object({ self: Link, redirect: O(Link) }),
});
export type PaymentDetails = Static<typeof PaymentDetails>;
export type DetailsCard = Static<typeof DetailsCard>;
export type DetailsAuthenticationData = Static<typeof AuthenticationData>;
export type DetailsOperation = Static<typeof DetailsOperation>;
