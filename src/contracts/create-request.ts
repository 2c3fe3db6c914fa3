import { type Static, Type } from 'typebox';
import {
  AmountValue,
  Currency,
  closed,
  DateOnly,
  DateTime,
  Language,
  Metadata,
  Minor,
  RefNr,
  Text,
  TransId,
  Url,
} from './primitives.js';

/**
 * The create requests of the Paygate v2 wire contract: `POST /payments` and `POST /payments/sessions`
 * (`paygate-v2-wire.md` §2). Every field a real client sends is here with its JSON type; the nested shapes follow
 * Paygate's names (the Eurofurence Go adapter's `interface.go` structs, the Axepta PHP library's `ParamsValidator`).
 */

const O = Type.Optional;
const S = (max = 256) => O(Text(max));
const I = (min = 0, max = 999_999_999) => O(Type.Integer({ minimum: min, maximum: max }));
const B = () => O(Type.Boolean());

/** `amount` of a create request: `value` (integer or digits-only string) and the informational totals. */
export const CreateAmount = Type.Object(
  {
    value: AmountValue,
    currency: Currency,
    taxTotal: O(Minor),
    netItemTotal: O(Minor),
    netShippingAmount: O(Minor),
    grossShippingAmount: O(Minor),
    netDiscount: O(Minor),
    grossDiscount: O(Minor),
  },
  closed,
);

/** `captureMethod`: DELAYED needs `delayed.delayedHours` (1–696), checked by the domain. */
export const CaptureMethod = Type.Object(
  {
    type: Type.Enum(['AUTOMATIC', 'MANUAL', 'DELAYED']),
    delayed: O(Type.Object({ delayedHours: Type.Integer({ minimum: 1, maximum: 696 }) }, closed)),
  },
  closed,
);

/** `customField1`…`customField14`: merchant texts on the hosted pages (1 amount text, 3 logo URL, 4 order text). */
export const CustomFields = Type.Object(
  {
    customField1: S(1024),
    customField2: S(1024),
    customField3: S(1024),
    customField4: S(1024),
    customField5: S(1024),
    customField6: S(1024),
    customField7: S(1024),
    customField8: S(1024),
    customField9: S(1024),
    customField10: S(1024),
    customField11: S(1024),
    customField12: S(1024),
    customField13: S(1024),
    customField14: S(1024),
  },
  closed,
);

/** `template` of a session or hosted payment. */
export const Template = Type.Object({ name: S(64), customFields: O(CustomFields) }, closed);

/** `paymentMethods.card.template`: the look of the hosted card form. */
export const CardTemplate = Type.Object(
  {
    name: S(64),
    backgroundColor: S(32),
    backgroundImage: S(2048),
    textColor: S(32),
    fontName: S(64),
    fontSize: I(),
    tableWidth: I(),
    tableHeight: I(),
    customFields: O(CustomFields),
  },
  closed,
);

/** `paymentMethods.card.prefillInfo`: prefills the hosted card step. */
export const PrefillInfo = Type.Object(
  { number: S(19), cardholderName: S(45), expiryDate: S(6), brand: S(32), securityCode: S(4) },
  closed,
);

/** A P-256 coordinate of a JWK: 32 bytes, base64url without padding (RFC 7518 §6.2.1.2). */
const Base64UrlCoordinate = Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' });

/** EMV 3DS SDK data of an app payment (EMVCo sdk* fields). Kassa extension: Paygate has no field for it. */
export const SdkInfo = Type.Object(
  {
    sdkTransID: Type.String({ format: 'uuid' }),
    sdkAppID: Type.String({ format: 'uuid' }),
    sdkEphemPubKey: Type.Object(
      {
        kty: Type.Literal('EC'),
        crv: Type.Literal('P-256'),
        x: Base64UrlCoordinate,
        y: Base64UrlCoordinate,
        kid: S(256),
        use: S(16),
        alg: S(16),
      },
      {
        ...closed,
        description:
          'EMVCo sdkEphemPubKey: the public JWK (RFC 7517, RFC 7518 §6.2) of the SDK ephemeral key, an EC P-256 key; ' +
          'a private member (`d`) is refused',
      },
    ),
    sdkReferenceNumber: Text(32, { minLength: 1 }),
    sdkMaxTimeout: Type.String({ pattern: '^(0[5-9]|[1-9][0-9])$', description: 'EMVCo: two digits, minutes, ≥ 05' }),
  },
  closed,
);

/**
 * `paymentMethods.card.threeDsPolicy`: Paygate's `skip`, `exemption`, `challengePreference`, and Kassa's extensions
 * `challengeWindowSize` (EMVCo 01–05), `browserAuthentication` (SYNCHRONOUS | REDIRECT) and `sdkInfo`.
 */
export const ThreeDsPolicy = Type.Object(
  {
    skip: O(Type.Enum(['THIS_TRANSACTION', 'OUT_OF_SCOPE', 'DATA_ONLY'])),
    exemption: O(
      Type.Object(
        {
          reason: O(
            Type.Enum([
              'TRANSACTION_RISK_ANALYSIS',
              'DELEGATE_AUTHORITY',
              'LOW_VALUE',
              'TRUSTED_BENEFICIARY',
              'SECURE_CORPORATE_PAYMENT',
            ]),
          ),
          merchantFraudRate: I(),
        },
        closed,
      ),
    ),
    challengePreference: O(Type.Enum(['NO_PREFERENCE', 'NO_CHALLENGE', 'REQUEST_CHALLENGE', 'MANDATE_CHALLENGE'])),
    challengeWindowSize: O(Type.Enum(['01', '02', '03', '04', '05'], { description: 'Kassa extension (EMVCo)' })),
    browserAuthentication: O(
      Type.Enum(['SYNCHRONOUS', 'REDIRECT'], {
        description:
          'Kassa extension. DIRECT browser payments: SYNCHRONOUS (default) authenticates during the call; REDIRECT ' +
          "answers PENDING with _links.redirect.href to Kassa's 3DS Method page (docs/3ds.md)",
      }),
    ),
    sdkInfo: O(SdkInfo),
  },
  closed,
);

/** `paymentMethods.card.eventToken` (wire §2), on payments and sessions: stored and echoed. */
export const EventToken = Type.Enum(['DELAYED_SHIPMENT', 'PRE_AUTH', 'PLBS', 'ORDER', 'ACCOUNT_VERIFICATION']);

/** Card brands of `paymentMethods.card.subType` and `brand`. */
export const CardBrandName = Text(32, { minLength: 1 });

/** `paymentMethods.card` of a payment: DIRECT card data, HOSTED look and policy. */
export const CardRequest = Type.Object(
  {
    number: O(Type.String({ pattern: '^[0-9]{12,19}$', description: 'PAN, digits only' })),
    expiryDate: O(Type.String({ pattern: '^[0-9]{4}(0[1-9]|1[0-2])$', description: 'YYYYMM' })),
    securityCode: O(Type.String({ pattern: '^[0-9]{3,4}$' })),
    cardHolderName: O(Text(45, { minLength: 1 })),
    brand: O(CardBrandName),
    subType: O(Type.Array(CardBrandName, { maxItems: 20 })),
    template: O(CardTemplate),
    prefillInfo: O(PrefillInfo),
    eventToken: O(EventToken),
    threeDsPolicy: O(ThreeDsPolicy),
  },
  closed,
);

/** `paymentMethods` of `POST /payments`: a card, DIRECT or HOSTED. */
export const PaymentMethodsRequest = Type.Object(
  { type: Type.Literal('CARD'), integrationType: Type.Enum(['DIRECT', 'HOSTED']), card: O(CardRequest) },
  closed,
);

/** `paymentMethods.card` of a session: which brands, what look, what 3-D Secure policy. */
export const SessionCard = Type.Object(
  {
    subType: O(Type.Array(CardBrandName, { maxItems: 20 })),
    template: O(CardTemplate),
    threeDsPolicy: O(ThreeDsPolicy),
    prefillInfo: O(PrefillInfo),
    eventToken: O(EventToken),
  },
  closed,
);

/**
 * `paymentMethods` of a session. Other methods' objects (`bancontact`, `ideal`, `klarna`, …) and any `type` are
 * accepted and ignored: Kassa offers cards only (wire §2).
 */
export const SessionPaymentMethods = Type.Object(
  { type: O(Text(32)), integrationType: O(Type.Enum(['HOSTED'])), card: O(SessionCard) },
  { additionalProperties: true },
);

/** `credentialOnFile`: saved cards and subscriptions. Stored and echoed; behaviour is a later issue. */
export const CredentialOnFile = Type.Object(
  {
    type: Type.Enum(['RECURRING', 'UNSCHEDULED', 'INSTALLMENTS']),
    initialPayment: B(),
    unscheduled: O(Type.Object({ subType: Type.Enum(['CIT', 'MIT']) }, closed)),
    recurring: O(
      Type.Object({ useCase: S(32), frequency: S(32), startDate: O(DateOnly), expiryDate: O(DateOnly) }, closed),
    ),
    installments: O(
      Type.Object(
        { total: I(), curIdx: I(), purchaseAmount: O(Minor), frequency: S(32), expiryDate: O(DateOnly) },
        closed,
      ),
    ),
  },
  closed,
);

export const Phone = Type.Object({ countryCode: S(8), number: S(32) }, closed);

/** `customerInfo` (Paygate's members). */
export const CustomerInfo = Type.Object(
  {
    merchantCustomerId: S(64),
    customerType: O(Type.Enum(['individual', 'business', 'INDIVIDUAL', 'BUSINESS'])),
    firstName: S(100),
    lastName: S(100),
    // "" too: Paygate's Go client sends `email` without omitempty, so a customerInfo without one carries "".
    email: O(Type.String({ anyOf: [{ format: 'email' }, { maxLength: 0 }], maxLength: 254 })),
    phone: O(Phone),
    salutation: S(32),
    title: S(32),
    gender: S(16),
    maidenName: S(100),
    middleName: S(100),
    birthDate: O(DateOnly),
    birthPlace: S(100),
    socialSecurityNumber: S(64),
    taxId: S(64),
    companyName: S(200),
    positionOccupied: S(100),
    companyRegistrationNumber: S(64),
    companyVatId: S(64),
    companyLegalForm: S(64),
  },
  closed,
);

const addressMembers = {
  streetName: S(128),
  streetNumber: S(32),
  addressLine2: S(128),
  addressLine3: S(128),
  city: S(128),
  state: S(64),
  // "" too: WooCommerce's Axepta plugin sends every member of an address the order does not have, country included,
  // as "" (a virtual product: no shipping address). Stored and echoed as sent.
  country: O(
    Type.String({
      pattern: '^([A-Za-z]{2,3})?$',
      description: 'ISO 3166-1 alpha-3 (alpha-2 accepted); "" when the order has no such address',
    }),
  ),
  postalCode: S(32),
};

/** `billingAddress`. */
export const BillingAddress = Type.Object(addressMembers, closed);

/** `shipping`: method and address. */
export const Shipping = Type.Object(
  {
    type: S(64),
    address: O(
      Type.Object(
        { firstName: S(100), lastName: S(100), companyName: S(200), ...addressMembers, phone: O(Phone) },
        closed,
      ),
    ),
  },
  closed,
);

/** `order.items[]`: any subset of Paygate's item members (`{name, taxRate}` alone is valid). Prices in minor units. */
export const OrderItem = Type.Object(
  {
    id: S(64),
    sku: S(64),
    name: S(200),
    type: S(32),
    quantity: I(0),
    quantityUnit: S(16),
    taxRate: I(0, 100_000),
    netPrice: O(Type.Integer()),
    grossPrice: O(Type.Integer()),
    discountAmount: O(Type.Integer()),
    taxAmount: O(Type.Integer()),
    merchantData: S(1024),
    description: S(1024),
    marketplaceSellerId: S(64),
    lineNumber: I(),
    merchantProductType: S(64),
    googleProductCategory: S(256),
    googleProductCategoryId: I(),
    groupId: S(64),
    taxCategory: S(64),
    additionalDescription: S(1024),
    productInfo: O(
      Type.Object(
        {
          brand: S(100),
          categories: O(Type.Array(Text(100), { maxItems: 20 })),
          globalTradeItemNumber: S(32),
          manufacturerPartNumber: S(64),
          imageUrl: S(2048),
          productUrl: S(2048),
        },
        closed,
      ),
    ),
  },
  closed,
);

/** `order`. */
export const Order = Type.Object(
  {
    merchantReference: S(64),
    numberOfArticles: I(),
    creationDate: O(Text(40)),
    invoiceId: S(64),
    items: O(Type.Array(OrderItem, { maxItems: 100 })),
  },
  closed,
);

/** `fraudData` (shape of Paygate's; stored and echoed). */
export const FraudData = Type.Object(
  {
    accountInfo: O(
      Type.Object(
        {
          id: S(64),
          authenticationInfo: O(Type.Object({ method: S(64), timestamp: S(40), data: S(2048) }, closed)),
          ageIndicator: S(32),
          changeDate: S(10),
          changeIndicator: S(32),
          creationDate: S(10),
          passwordChangeDate: S(10),
          passwordChangeDateIndicator: S(32),
          numberOfPurchases: I(),
          addCardAttemptsDay: I(),
          numberTransactionsDay: I(),
          numberTransactionsYear: I(),
          paymentAccountAge: S(10),
          paymentAccountAgeIndicator: S(32),
          shipAddressUsageDate: S(10),
          shipAddressUsageIndicator: S(32),
          suspiciousAccountActivity: B(),
        },
        closed,
      ),
    ),
    deliveryEmail: S(254),
    deliveryTimeframe: S(32),
    giftCardAmount: O(Minor),
    giftCardCount: I(),
    giftCardCurrency: I(0, 999),
    preOrderDate: S(10),
    preOrderPurchaseIndicator: B(),
    reorderItemsIndicator: B(),
    shippingAddressIndicator: S(64),
    ipZone: S(256),
    zone: S(256),
  },
  closed,
);

/** `paymentFacilitator`: the sub-merchant of a payment facilitator. */
export const PaymentFacilitator = Type.Object(
  {
    subMerchantId: S(64),
    subMerchantName: S(128),
    subMerchantCity: S(64),
    subMerchantCountry: S(3),
    subMerchantStreet: S(128),
    subMerchantZip: S(32),
    subMerchantState: S(64),
  },
  closed,
);

/** `device`: the shopper's device as the merchant's fraud tooling saw it. */
export const Device = Type.Object(
  {
    deviceId: S(128),
    deviceType: S(32),
    deviceOs: S(32),
    confidence: I(0, 100),
    newDevice: B(),
    isAnonymousProxyUsed: B(),
    isProxyUsed: B(),
    country: S(3),
    city: S(64),
    latitude: S(32),
    longitude: S(32),
    fraudScore: O(Type.Integer()),
    fraudScoreRules: O(Type.Array(Text(128), { maxItems: 50 })),
    browserLanguages: O(Type.Array(Text(35), { maxItems: 20 })),
    isMobileDevice: B(),
    fraud: S(32),
  },
  closed,
);

/**
 * `browserInfo` per Paygate and EMV 3DS: `timeZoneOffset` in minutes as a string (a number too), `javaEnabled`
 * (EMVCo browserJavaEnabled).
 */
export const BrowserInfo = Type.Object(
  {
    acceptHeaders: Text(2048, { minLength: 1 }),
    ipAddress: O(Type.String({ anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] })),
    javaEnabled: B(),
    javaScriptEnabled: Type.Boolean(),
    language: Text(35, { minLength: 1 }),
    // Bits per pixel as the browser reports it (`screen.colorDepth`: 30 on 10-bit displays); the AReq carries the
    // nearest EMVCo browserColorDepth value not above it (domain/threeds emvColorDepth).
    colorDepth: O(Type.Integer({ minimum: 1, maximum: 99 })),
    screenHeight: I(0, 999_999),
    screenWidth: I(0, 999_999),
    timeZoneOffset: O(
      Type.Union([
        Type.String({ pattern: '^[+-]?[0-9]{1,3}$', description: 'minutes (UTC − local)' }),
        Type.Integer({ minimum: -840, maximum: 840 }),
      ]),
    ),
    userAgent: Text(2048, { minLength: 1 }),
  },
  closed,
);

/**
 * `browserInfo` of a session: informational, stored and echoed (the hosted pages read the cardholder's own browser for
 * 3-D Secure), so no member is required; Paygate's Go client leaves empty ones out (omitempty).
 */
export const SessionBrowserInfo = Type.Partial(BrowserInfo, closed);

/** `channel`: ECOM (default), MOTO (no 3-D Secure: out of SCA scope), APP (3DS SDK), PAYBYLINK, POS. */
export const Channel = Type.Enum(['ECOM', 'MOTO', 'APP', 'PAYBYLINK', 'POS']);

/** `urls`. */
export const Urls = Type.Object({ return: O(Url), cancel: O(Url), webhook: O(Url), appRedirect: O(Url) }, closed);

/** Members common to payments and sessions. */
const commonMembers = {
  transId: TransId,
  refNr: O(RefNr),
  externalIntegrationId: S(64),
  requestId: S(64),
  amount: CreateAmount,
  language: O(Language),
  captureMethod: O(CaptureMethod),
  template: O(Template),
  credentialOnFile: O(CredentialOnFile),
  customerInfo: O(CustomerInfo),
  billingAddress: O(BillingAddress),
  shipping: O(Shipping),
  order: O(Order),
  statementDescriptor: S(256),
  simulationMode: S(16),
  partialPayment: B(),
  expirationTime: O(DateTime),
  fraudData: O(FraudData),
  paymentFacilitator: O(PaymentFacilitator),
  device: O(Device),
  remittanceInfo: S(1024),
  metadata: O(Metadata),
  allowedPaymentMethod: O(Type.Array(Text(32), { maxItems: 30 })),
  referencePayId: S(64),
  urls: O(Urls),
};

/** Body of `POST /payments` (wire §2). */
export const CreatePaymentRequest = Type.Object(
  {
    ...commonMembers,
    channel: O(Channel),
    browserInfo: O(BrowserInfo),
    paymentMethods: PaymentMethodsRequest,
  },
  {
    ...closed,
    description:
      'Rules beyond the schema (each refused 400 naming the field): DIRECT needs `paymentMethods.card` with ' +
      '`number` and `expiryDate`, and `browserInfo` on a browser channel (`sdkInfo` under ' +
      '`paymentMethods.card.threeDsPolicy` on APP) unless it is a merchant-initiated stored-credential payment or MOTO; ' +
      'HOSTED needs `urls.return`; outside sandbox every URL is https on a public host.',
  },
);
export type CreatePaymentRequest = Static<typeof CreatePaymentRequest>;

/** Body of `POST /payments/sessions` (wire §2): the order, never card data. */
export const CreateSessionRequest = Type.Object(
  {
    ...commonMembers,
    channel: O(Channel),
    browserInfo: O(SessionBrowserInfo),
    paymentMethods: O(SessionPaymentMethods),
    expiresInSeconds: O(
      Type.Integer({ minimum: 300, maximum: 86_400, description: 'Kassa extension: seconds until expiry' }),
    ),
  },
  {
    ...closed,
    description:
      'Rules beyond the schema (each refused 400 naming the field): `urls.return` and `urls.cancel` are required; ' +
      'outside sandbox every URL is https on a public host.',
  },
);
export type CreateSessionRequest = Static<typeof CreateSessionRequest>;

export type CreateAmount = Static<typeof CreateAmount>;
export type CustomerInfo = Static<typeof CustomerInfo>;
export type BillingAddress = Static<typeof BillingAddress>;
export type Shipping = Static<typeof Shipping>;
export type Order = Static<typeof Order>;
export type OrderItem = Static<typeof OrderItem>;
export type FraudData = Static<typeof FraudData>;
export type PaymentFacilitator = Static<typeof PaymentFacilitator>;
export type Device = Static<typeof Device>;
export type BrowserInfo = Static<typeof BrowserInfo>;
export type Channel = Static<typeof Channel>;
export type Urls = Static<typeof Urls>;
export type ThreeDsPolicy = Static<typeof ThreeDsPolicy>;
export type SdkInfo = Static<typeof SdkInfo>;
export type CredentialOnFile = Static<typeof CredentialOnFile>;
export type CaptureMethod = Static<typeof CaptureMethod>;
export type Template = Static<typeof Template>;
export type CardTemplate = Static<typeof CardTemplate>;
export type PrefillInfo = Static<typeof PrefillInfo>;
export type CustomFields = Static<typeof CustomFields>;
