/**
 * How Go's encoding/json decodes a JSON body into the Eurofurence registration adapter's typed structs
 * (github.com/eurofurence/reg-paygate-adapter, internal/repository/nexi/interface.go at f6d5750; webhook body:
 * internal/api/v1/nexiapi/webhook.go). The field kinds below are transcribed from those structs (json tag → Go type):
 * `string`, `int` (int/int64: a JSON number without fraction), `bool`, nested structs, slices, maps. A JSON value of
 * another kind makes `json.Unmarshal` fail for the whole body — the way a string `paymentMethods.card.bin` broke the
 * client. Unknown keys are ignored and keys match case-insensitively, as encoding/json does; `null` is accepted.
 */

export type GoKind =
  | 'string'
  | 'int'
  | 'bool'
  | 'any'
  | { struct: () => GoStruct }
  | { slice: GoKind }
  | { map: GoKind };
export type GoStruct = Record<string, GoKind>;

/** The decode errors `json.Unmarshal` would report for `value` into `struct`, as `path: message` (empty = decodes). */
export function goDecodeErrors(value: unknown, kind: GoKind, path = '$'): string[] {
  if (value === null || kind === 'any') return [];
  if (kind === 'string')
    return typeof value === 'string' ? [] : [`${path}: cannot unmarshal ${jsonKind(value)} into string`];
  if (kind === 'bool')
    return typeof value === 'boolean' ? [] : [`${path}: cannot unmarshal ${jsonKind(value)} into bool`];
  if (kind === 'int') {
    return typeof value === 'number' && Number.isInteger(value)
      ? []
      : [`${path}: cannot unmarshal ${jsonKind(value)} into int64`];
  }
  if ('slice' in kind) {
    if (!Array.isArray(value)) return [`${path}: cannot unmarshal ${jsonKind(value)} into slice`];
    return value.flatMap((v, i) => goDecodeErrors(v, kind.slice, `${path}[${i}]`));
  }
  if (typeof value !== 'object' || Array.isArray(value))
    return [`${path}: cannot unmarshal ${jsonKind(value)} into object`];
  if ('map' in kind) {
    return Object.entries(value).flatMap(([k, v]) => goDecodeErrors(v, kind.map, `${path}.${k}`));
  }
  const fields = kind.struct();
  const byLowerName = new Map(Object.keys(fields).map((name) => [name.toLowerCase(), name]));
  return Object.entries(value).flatMap(([key, v]) => {
    const field = key in fields ? key : byLowerName.get(key.toLowerCase());
    return field === undefined ? [] : goDecodeErrors(v, fields[field] as GoKind, `${path}.${key}`);
  });
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

export const ChallengeRequestResponse: GoStruct = {
  threeDSServerTransId: 'string',
  acsTransId: 'string',
  challengeWindowSize: 'string',
  messageVersion: 'string',
  messageType: 'string',
  base64EncodedChallengeRequest: 'string',
  threeDSCompInd: 'string',
};

export const ThreeDSErrorDetailsResponse: GoStruct = {
  threeDSServerTransId: 'string',
  errorCode: 'string',
  errorComponent: 'string',
  errorDescription: 'string',
};

export const ThreeDSMethodDataResponse: GoStruct = {
  threeDSMethodNotificationUrl: 'string',
  threeDSServerTransId: 'string',
};

export const CardAuthenticationResponse: GoStruct = {
  threeDSServerTransId: 'string',
  acsChallengeMandated: 'bool',
  acsDecConInd: 'bool',
  acsOperatorId: 'string',
  acsReferenceNumber: 'string',
  acsSignedContent: 'string',
  acsTransId: 'string',
  acsURL: 'string',
  authenticationType: 'string',
  authenticationValue: 'string',
  broadInfo: 'string',
  cardholderInfo: 'string',
  dsReferenceNumber: 'string',
  dsTransId: 'string',
  eci: 'string',
  messageExtension: 'string',
  messageType: 'string',
  messageVersion: 'string',
  sdkTransId: 'string',
  transStatus: 'string',
  transStatusReason: 'string',
  whiteListStatus: 'string',
  whiteListStatusSource: 'string',
  challengeRequest: { struct: () => ChallengeRequestResponse },
};

export const CardFraudDataResponse: GoStruct = {
  zone: 'string',
  ipZone: 'string',
  ipZoneA2: 'string',
  ipState: 'string',
  ipCity: 'string',
  ipLongitude: 'string',
  ipLatitude: 'string',
  fsStatus: 'string',
  fsCode: 'string',
};

export const CardVersioningDataResponse: GoStruct = {
  threeDSServerTransId: 'string',
  acsStartProtocolVersion: 'string',
  acsEndProtocolVersion: 'string',
  dsStartProtocolVersion: 'string',
  dsEndProtocolVersion: 'string',
  threeDSMethodDataForm: 'string',
  threeDSMethodUrl: 'string',
  threeDSMethodData: { struct: () => ThreeDSMethodDataResponse },
  errorDetails: { struct: () => ThreeDSErrorDetailsResponse },
};

export const CardBINResponse: GoStruct = {
  accountBin: 'string',
  accountRangeLow: 'string',
  accountRangeHigh: 'string',
};

export const NexiFraudAuthenticationInfo: GoStruct = {
  method: 'string',
  timestamp: 'string',
  data: 'string',
};

export const NexiProductInfo: GoStruct = {
  brand: 'string',
  categories: { slice: 'string' },
  globalTradeItemNumber: 'string',
  manufacturerPartNumber: 'string',
  imageUrl: 'string',
  productUrl: 'string',
};

export const RedirectLink: GoStruct = {
  href: 'string',
  type: 'string',
};

export const GooglePayResponse: GoStruct = {
  schemeReferenceId: 'string',
};

export const CardResponse: GoStruct = {
  cardHolderName: 'string',
  pseudoCardNumber: 'string',
  first6Digits: 'string',
  last4Digits: 'string',
  expiryDate: 'string',
  brand: 'string',
  product: 'string',
  source: 'string',
  type: 'string',
  issuer: 'string',
  country: 'string',
  bin: { struct: () => CardBINResponse },
  versioningData: { struct: () => CardVersioningDataResponse },
  fraudData: { struct: () => CardFraudDataResponse },
  authenticationData: { struct: () => CardAuthenticationResponse },
  schemeReferenceId: 'string',
  providerApprovalCode: 'string',
  providerResponseCode: 'string',
  providerResponseMessage: 'string',
  providerTransactionId: 'string',
  providerToken: 'string',
  providerMerchantId: 'string',
  providerTerminalId: 'string',
  providerOrderId: 'string',
  issuerResponseCode: 'string',
  issuerResponseMessage: 'string',
};

export const ApplePayResponse: GoStruct = {
  schemeReferenceId: 'string',
};

export const NexiFraudAccountInfo: GoStruct = {
  id: 'string',
  authenticationInfo: { struct: () => NexiFraudAuthenticationInfo },
  ageIndicator: 'string',
  changeDate: 'string',
  changeIndicator: 'string',
  creationDate: 'string',
  passwordChangeDate: 'string',
  passwordChangeDateIndicator: 'string',
  numberOfPurchases: 'int',
  addCardAttemptsDay: 'int',
  numberTransactionsDay: 'int',
  numberTransactionsYear: 'int',
  paymentAccountAge: 'string',
  paymentAccountAgeIndicator: 'string',
  shipAddressUsageDate: 'string',
  shipAddressUsageIndicator: 'string',
  suspiciousAccountActivity: 'bool',
};

export const NexiPhone: GoStruct = {
  countryCode: 'string',
  number: 'string',
};

export const NexiShippingAddress: GoStruct = {
  firstName: 'string',
  lastName: 'string',
  companyName: 'string',
  streetName: 'string',
  streetNumber: 'string',
  addressLine2: 'string',
  addressLine3: 'string',
  city: 'string',
  state: 'string',
  country: 'string',
  postalCode: 'string',
  phone: { struct: () => NexiPhone },
};

export const NexiOrderItem: GoStruct = {
  id: 'string',
  sku: 'string',
  name: 'string',
  type: 'string',
  quantity: 'int',
  quantityUnit: 'string',
  taxRate: 'int',
  netPrice: 'int',
  grossPrice: 'int',
  discountAmount: 'int',
  taxAmount: 'int',
  merchantData: 'string',
  description: 'string',
  marketplaceSellerId: 'string',
  lineNumber: 'int',
  merchantProductType: 'string',
  googleProductCategory: 'string',
  googleProductCategoryId: 'int',
  groupId: 'string',
  taxCategory: 'string',
  additionalDescription: 'string',
  productInfo: { struct: () => NexiProductInfo },
};

export const NexiDelayedCaptureMethod: GoStruct = {
  delayedHours: 'int',
};

export const NexiCheckoutSessionResponseLinks: GoStruct = {
  redirect: { struct: () => RedirectLink },
};

export const NexiPaymentMethodsResponse: GoStruct = {
  type: 'string',
  applePay: { struct: () => ApplePayResponse },
  card: { struct: () => CardResponse },
  googlePay: { struct: () => GooglePayResponse },
};

export const NexiDevice: GoStruct = {
  deviceId: 'string',
  deviceType: 'string',
  deviceOs: 'string',
  confidence: 'int',
  newDevice: 'bool',
  isAnonymousProxyUsed: 'bool',
  isProxyUsed: 'bool',
  country: 'string',
  city: 'string',
  latitude: 'string',
  longitude: 'string',
  fraudScore: 'int',
  fraudScoreRules: { slice: 'string' },
  browserLanguages: { slice: 'string' },
  isMobileDevice: 'bool',
  fraud: 'string',
};

export const NexiBrowserInfo: GoStruct = {
  acceptHeaders: 'string',
  ipAddress: 'string',
  javaEnabled: 'bool',
  javaScriptEnabled: 'bool',
  language: 'string',
  colorDepth: 'int',
  screenHeight: 'int',
  screenWidth: 'int',
  timeZoneOffset: 'string',
  userAgent: 'string',
};

export const NexiPaymentFacilitator: GoStruct = {
  subMerchantId: 'string',
  subMerchantName: 'string',
  subMerchantCity: 'string',
  subMerchantCountry: 'string',
  subMerchantStreet: 'string',
  subMerchantZip: 'string',
  subMerchantState: 'string',
};

export const NexiFraudData: GoStruct = {
  accountInfo: { struct: () => NexiFraudAccountInfo },
  deliveryEmail: 'string',
  deliveryTimeframe: 'string',
  giftCardAmount: 'int',
  giftCardCount: 'int',
  giftCardCurrency: 'int',
  preOrderDate: 'string',
  preOrderPurchaseIndicator: 'bool',
  reorderItemsIndicator: 'bool',
  shippingAddressIndicator: 'string',
  ipZone: 'string',
  zone: 'string',
};

export const NexiCustomerInfoResponse: GoStruct = {
  gatewayCustomerId: 'string',
  merchantCustomerId: 'string',
  customerType: 'string',
  firstName: 'string',
  lastName: 'string',
  email: 'string',
  phone: { struct: () => NexiPhone },
  salutation: 'string',
  title: 'string',
  gender: 'string',
  maidenName: 'string',
  middleName: 'string',
  birthDate: 'string',
  birthPlace: 'string',
  socialSecurityNumber: 'string',
  taxId: 'string',
  companyName: 'string',
  positionOccupied: 'string',
  companyRegistrationNumber: 'string',
  companyVatId: 'string',
  companyLegalForm: 'string',
};

export const NexiShipping: GoStruct = {
  type: 'string',
  address: { struct: () => NexiShippingAddress },
};

export const NexiBillingAddress: GoStruct = {
  streetName: 'string',
  streetNumber: 'string',
  addressLine2: 'string',
  addressLine3: 'string',
  city: 'string',
  state: 'string',
  country: 'string',
  postalCode: 'string',
};

export const NexiPaymentUrlsResponse: GoStruct = {
  return: 'string',
  cancel: 'string',
  webhook: 'string',
};

export const NexiOrder: GoStruct = {
  merchantReference: 'string',
  numberOfArticles: 'int',
  creationDate: 'string',
  invoiceId: 'string',
  items: { slice: { struct: () => NexiOrderItem } },
};

export const NexiCaptureMethod: GoStruct = {
  type: 'string',
  delayed: { struct: () => NexiDelayedCaptureMethod },
};

export const NexiAmountResponse: GoStruct = {
  value: 'int',
  currency: 'string',
  taxTotal: 'int',
  netItemTotal: 'int',
  netShippingAmount: 'int',
  grossShippingAmount: 'int',
  netDiscount: 'int',
  grossDiscount: 'int',
  capturedValue: 'int',
  refundedValue: 'int',
};

export const NexiCreateCheckoutSessionResponse: GoStruct = {
  _links: { struct: () => NexiCheckoutSessionResponseLinks },
};

export const NexiPaymentQueryResponse: GoStruct = {
  payId: 'string',
  transId: 'string',
  externalIntegrationId: 'string',
  refNr: 'string',
  xId: 'string',
  status: 'string',
  responseCode: 'string',
  responseDescription: 'string',
  metadata: { map: 'any' },
  amount: { struct: () => NexiAmountResponse },
  language: 'string',
  captureMethod: { struct: () => NexiCaptureMethod },
  order: { struct: () => NexiOrder },
  simulationMode: 'string',
  urls: { struct: () => NexiPaymentUrlsResponse },
  billingAddress: { struct: () => NexiBillingAddress },
  shipping: { struct: () => NexiShipping },
  statementDescriptor: 'string',
  customerInfo: { struct: () => NexiCustomerInfoResponse },
  expirationTime: 'string',
  fraudData: { struct: () => NexiFraudData },
  paymentFacilitator: { struct: () => NexiPaymentFacilitator },
  browserInfo: { struct: () => NexiBrowserInfo },
  device: { struct: () => NexiDevice },
  channel: 'string',
  paymentMethods: { struct: () => NexiPaymentMethodsResponse },
  merchantId: 'string',
};

/** `WebhookDto` of internal/api/v1/nexiapi/webhook.go: the notification body the adapter decodes. */
export const WebhookDto: GoStruct = {
  payId: 'string',
  transId: 'string',
  status: 'string',
  responseCode: 'string',
  responseDescription: 'string',
  amount: { struct: () => ({ value: 'int', currency: 'string' }) },
  paymentMethods: { struct: () => ({ type: 'string' }) },
  creationDate: 'string',
};
