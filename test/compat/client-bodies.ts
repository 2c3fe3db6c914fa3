/**
 * The request bodies public Paygate v2 clients really send, rebuilt from their public source (paygate-v2-wire.md
 * lists them). Values are plausible shop data; keys, nesting and JSON types are the clients'. Each builder names the
 * code it follows.
 */

const suffix = () => Math.random().toString(36).slice(2, 10);

/**
 * Eurofurence registration adapter (Go): `nexiCreateRequestFromApiRequest` in
 * internal/service/paymentlinksrv/paylinks.go (eurofurence/reg-paygate-adapter at f6d5750), marshalled through the
 * `NexiCreateCheckoutSessionRequest` struct of internal/repository/nexi/interface.go: `omitempty` drops empty members,
 * `urls` is a struct value and always sent, amounts are int64, the VAT rate is `taxRate` in hundredths of a percent,
 * the only order item is `{name, taxRate}`, `simulationMode` "0000" in test mode. Sent with Basic auth to
 * `POST {base}/payments/sessions`, base ending in /api/v2.
 */
export function eurofurenceSession(currency = 'EUR') {
  const amountDue = 15_500; // 155.00 EUR
  const vatRate = 7;
  const taxTotal = Math.round((amountDue * vatRate) / 100);
  return {
    transId: `EF2026-000042-1122-${suffix()}`,
    amount: { value: amountDue, currency, taxTotal, netItemTotal: amountDue - taxTotal },
    language: 'de',
    urls: {
      return: 'https://reg.eurofurence.example/app/register/payment-success',
      cancel: 'https://reg.eurofurence.example/app/register/payment-failed',
      webhook: 'https://reg.eurofurence.example/api/rest/v1/webhook/s3cr3t',
    },
    statementDescriptor: 'Eurofurence 2026',
    order: { numberOfArticles: 1, items: [{ name: 'Eurofurence 2026 Registration', taxRate: vatRate * 100 }] },
    simulationMode: '0000',
    customerInfo: { email: 'attendee@example.org' },
    paymentMethods: {
      card: {
        template: { customFields: { customField1: '155.00 EUR', customField4: 'Eurofurence 2026 Registration' } },
      },
    },
  };
}

/** Axepta `customFields` as `ParamsValidator::_buildJsonCustomFieldsFromCfg` builds them (amount text, logo, cart). */
function axeptaCustomFields(amountValue: string, currency: string, transId: string) {
  return {
    customField1: `${amountValue} ${currency}`,
    customField2: transId,
    customField3: 'https://shop.example/img/logo.png',
    customField4: 'Ma Boutique Cart N°42',
    customField6: 'Jean Dupont',
  };
}

/** `customerInfo` after `_buildJsonCustomerInfoFromCfg` and `Utils::removeNestedValues` (nulls and empty arrays gone). */
const axeptaCustomerInfo = {
  merchantCustomerId: '17',
  customerType: 'individual',
  firstName: 'Jean',
  lastName: 'Dupont',
  email: 'jean.dupont@example.fr',
  phone: { countryCode: '33', number: '612345678' },
};

/** Addresses from `_buildJsonAddressFromCfg`: ISO 3166-1 alpha-3 country. */
const axeptaAddress = {
  streetName: 'Rue de Rivoli',
  streetNumber: '12',
  city: 'Paris',
  country: 'FRA',
  postalCode: '75001',
};

/** `metadata` from `_buildJsonMetadataFromCfg`: every value cast to string, `false` becomes "". */
function axeptaMetadata(operationType: string, mode: string, trigram: string) {
  return {
    operationType,
    paymentMode: 'TEST',
    captureMethod: 'AUTO',
    cartId: '42',
    paymentRenderingMode: mode,
    saveCard: '',
    trigram,
    iframe: '',
  };
}

/**
 * Axepta PHP library 2.0.0 (AxeptaBNPParibas/AxeptaOnline-PHP-Library, `AxeptaPaygate`), hosted payment page:
 * `PaymentMethod::build()` for SIMPLE_PAYMENT in HPP mode → `POST /api/v2/payments/sessions`. `amount.value` is the
 * configured string (`n..10`), `refNr` zero-padded to 12 (`an12`), `requestId` `20<len>-<CARTID>`, `customFields`
 * moved to `template.customFields`, and `_buildJsonPaymentMethods` lists every method with `type` left at the last
 * one (PAYPAL) and `card.subType` all four brands.
 */
export function axeptaHppSession(currency = 'EUR', language = 'fr') {
  const transId = `ax-hpp-${suffix()}`;
  return {
    amount: { value: '1234', currency },
    billingAddress: axeptaAddress,
    captureMethod: { type: 'AUTOMATIC' },
    customerInfo: axeptaCustomerInfo,
    template: { customFields: axeptaCustomFields('1234', currency, transId) },
    language,
    metadata: axeptaMetadata('SIMPLE_PAYMENT', 'HPP', ''),
    paymentMethods: {
      card: { subType: ['VISA', 'MASTERCARD', 'CARTESBANCAIRES', 'AMEX'] },
      type: 'PAYPAL',
      bancontact: { account: { accountHolderName: 'Jean Dupont' } },
      ideal: { subType: 'IDEAL' },
      klarna: { subType: 'PAY_NOW' },
    },
    refNr: '000000000042',
    requestId: '202-42',
    shipping: { address: axeptaAddress },
    statementDescriptor: 'MA BOUTIQUE',
    transId,
    urls: {
      cancel: 'https://shop.example/axepta/cancel',
      webhook: 'https://shop.example/axepta/webhook',
      return: 'https://shop.example/axepta/return',
    },
  };
}

/**
 * Axepta PHP library, hosted card form: `CardTrait::buildOrNull()` for SIMPLE_PAYMENT in REDIRECT mode with trigram
 * CVM (Visa, Mastercard, Cartes Bancaires) → `POST /api/v2/payments` with `integrationType: HOSTED`;
 * `customFields` go to `paymentMethods.card.template.customFields`.
 */
export function axeptaHostedPayment(currency = 'EUR', captureType: 'AUTOMATIC' | 'MANUAL' = 'MANUAL') {
  const transId = `ax-redirect-${suffix()}`;
  return {
    amount: { value: '2500', currency },
    captureMethod: { type: captureType },
    customerInfo: axeptaCustomerInfo,
    paymentMethods: {
      card: {
        subType: ['VISA', 'MASTERCARD', 'CARTESBANCAIRES'],
        template: { customFields: axeptaCustomFields('2500', currency, transId) },
      },
      type: 'CARD',
      integrationType: 'HOSTED',
    },
    refNr: '000000000043',
    requestId: '202-43',
    statementDescriptor: 'MA BOUTIQUE',
    transId,
    metadata: axeptaMetadata('SIMPLE_PAYMENT', 'REDIRECT', 'CVM'),
    language: 'fr',
    billingAddress: axeptaAddress,
    shipping: { address: axeptaAddress },
    urls: {
      cancel: 'https://shop.example/axepta/cancel',
      webhook: 'https://shop.example/axepta/webhook',
      return: 'https://shop.example/axepta/return',
    },
  };
}

/**
 * Axepta PHP library, card payment in DIRECT mode: `CardTrait::buildOrNull()` for SIMPLE_PAYMENT with
 * `paymentRenderingMode` DIRECT → `POST /api/v2/payments` with only `amount`, `captureMethod`, `customerInfo`,
 * `paymentMethods`, `refNr`, `requestId`, `statementDescriptor`, `transId`, `metadata`: no `browserInfo`, no `urls`,
 * no `language`, and `_buildJsonPaymentMethods` puts `number`, `cardHolderName`, `expiryDate` and `brand` in the card —
 * no `securityCode`. With `saveCard` the library adds `credentialOnFile` UNSCHEDULED, `subType` MIT, initialPayment
 * true (`_buildJsonCofFromCfg`).
 */
export function axeptaDirectPayment(pan: string, opts: { saveCard?: boolean; currency?: string } = {}) {
  const currency = opts.currency ?? 'EUR';
  return {
    amount: { value: '1500', currency },
    captureMethod: { type: 'AUTOMATIC' },
    customerInfo: axeptaCustomerInfo,
    paymentMethods: {
      card: { number: pan, cardHolderName: 'Jean Dupont', expiryDate: '203012', brand: 'VISA' },
      type: 'CARD',
      integrationType: 'DIRECT',
    },
    refNr: '000000000044',
    requestId: '202-44',
    statementDescriptor: 'MA BOUTIQUE',
    transId: `ax-direct-${suffix()}`,
    metadata: axeptaMetadata('SIMPLE_PAYMENT', 'DIRECT', 'CVM'),
    ...(opts.saveCard && {
      credentialOnFile: { type: 'UNSCHEDULED', unscheduled: { subType: 'MIT' }, initialPayment: true },
    }),
  };
}

/** `credentialOnFile` of a subscription from `_buildJsonCofFromCfg` (`recurring.*` from the plugin's configuration). */
const axeptaRecurring = { frequency: '30', expiryDate: '2030-12-31', useCase: 'FIXED' };

/**
 * Axepta PHP library, the first payment of a subscription: SIMPLE_PAYMENT in REDIRECT mode with
 * `initializeSubscription` → the HOSTED payment body plus `credentialOnFile` RECURRING, initialPayment true (with
 * `startDate`, today by default).
 */
export function axeptaSubscriptionStart(startDate: string) {
  return {
    ...axeptaHostedPayment('EUR', 'AUTOMATIC'),
    credentialOnFile: { type: 'RECURRING', initialPayment: true, recurring: { ...axeptaRecurring, startDate } },
  };
}

/**
 * Axepta PHP library, a subscription's later payment: `CardTrait::buildOrNull()` for RECURRING_PAYMENT_SUBSCRIPTION
 * (DIRECT only) → `POST /api/v2/payments` with `amount`, `captureMethod`, `credentialOnFile` RECURRING
 * initialPayment false (no startDate), `paymentMethods` (the stored pseudo card number, no securityCode), `refNr`,
 * `requestId`, `transId`, `metadata` — merchant-initiated, so no browserInfo.
 */
export function axeptaSubscriptionPayment(pseudoCardNumber: string, expiryDate: string) {
  return {
    amount: { value: '2500', currency: 'EUR' },
    captureMethod: { type: 'AUTOMATIC' },
    credentialOnFile: { type: 'RECURRING', initialPayment: false, recurring: axeptaRecurring },
    paymentMethods: {
      card: { number: pseudoCardNumber, cardHolderName: 'Jean Dupont', expiryDate, brand: 'VISA' },
      type: 'CARD',
      integrationType: 'DIRECT',
    },
    refNr: '000000000045',
    requestId: '202-45',
    transId: `ax-sub-${suffix()}`,
    metadata: axeptaMetadata('RECURRING_PAYMENT_SUBSCRIPTION', 'DIRECT', 'CVM'),
  };
}

/**
 * Axepta PHP library, capture: `PaymentMethod::build()` for CAPTURE_PAYMENT → `POST /payments/{payId}/captures` with
 * `amount` (string value), the payment's `transId` and always `finishAuth: "Y"`.
 */
export function axeptaCapture(transId: string, value: string, currency = 'EUR') {
  return { amount: { value, currency }, transId, finishAuth: 'Y' };
}

/** Axepta PHP library, refund or reversal: `RefundAndReversalTrait::buildOrNull()` → `{transId, amount, refNr}`. */
export function axeptaRefundOrReversal(transId: string, value: string, currency = 'EUR') {
  return { transId, amount: { currency, value }, refNr: '000000000042' };
}

/**
 * PHP's `json_encode` as the library calls it (no flags): `/` escaped as `\/` and non-ASCII as `\uXXXX`.
 * The wire text the server must parse.
 */
export function phpJsonEncode(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('/', '\\/')
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A Next.js shop's Axepta client (TypeScript, `lib/checkout/axepta.ts`, public): `createAxeptaCheckoutSession` →
 * `POST /api/v2/payments/sessions` with an `Idempotency-Key`, OAuth 2 token from a Basic header. `undefined` members
 * vanish in `JSON.stringify`; references pass through `truncateAns30`.
 */
export function nextJsSession(currency = 'EUR') {
  const transId = crypto.randomUUID();
  return {
    transId,
    amount: { currency, value: 4_900 },
    language: 'fr',
    captureMethod: { type: 'AUTOMATIC' },
    customerInfo: {
      merchantCustomerId: 'chk_9f3a2b',
      customerType: 'individual',
      firstName: 'Camille',
      lastName: 'Martin',
      email: 'camille@example.fr',
    },
    order: {
      merchantReference: 'CMD-2026-0042',
      invoiceId: 'ord_7d1e',
      numberOfArticles: 1,
      creationDate: new Date().toISOString(),
    },
    urls: {
      return: `https://shop.example/api/checkout/axepta/return?transId=${transId}&orderId=ord_7d1e`,
      cancel: `https://shop.example/api/checkout/axepta/cancel?transId=${transId}&orderId=ord_7d1e`,
      webhook: 'https://shop.example/api/checkout/axepta/webhook',
    },
    metadata: { checkoutId: 'chk_9f3a2b', orderId: 'ord_7d1e', paymentId: 'pay_51c0' },
    template: { customFields: { customField1: '49.00 €', customField2: 'CMD-2026-0042', customField4: 'ord_7d1e' } },
  };
}
