import type {
  CreatePaymentRequest,
  CreateSessionRequest,
  BrowserInfo as WireBrowserInfo,
} from '../../contracts/create-request.js';
import { type FieldError, KassaError } from '../../domain/errors/error-catalogue.js';
import { detectBrand } from '../../domain/payments/card-checks.js';
import type { CreateSessionCommand } from '../../domain/payments/hosted-payment-service.js';
import type { InformationalFields } from '../../domain/payments/payment.js';
import type { BrowserInfo, CreatePaymentCommand, SdkInfo } from '../../domain/payments/payment-request.js';
import type { CardBrand } from '../../domain/ports/bin-table.js';

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

/** Money members of an order item (minor units); none may be negative but the prices of a line that lowers the total. */
const ITEM_AMOUNTS = ['netPrice', 'grossPrice', 'discountAmount', 'taxAmount'] as const;

/** Klarna's line types (Paygate passes them on) whose prices are negative: they lower the total. */
const NEGATIVE_LINE_TYPES = new Set(['discount', 'gift_card', 'store_credit']);

/** A line's Paygate `type` (Klarna's line types: `physical`, `shipping_fee`, `discount`, `sales_tax`, …), lower case. */
const lineType = (item: { type?: string }): string | undefined => item.type?.toLowerCase();

/**
 * What is wrong with the order lines of a create request (wire §2 `order.items[]`), as field errors naming
 * `order.items.<i>.<member>`:
 * - a money member (`netPrice`, `grossPrice`, `discountAmount`, `taxAmount`) that is negative, except the prices of a
 *   `discount`, `gift_card` or `store_credit` line, which lower the total as Klarna-style clients send them;
 * - when every line gives `grossPrice` (the unit price customers pay, as the checkout page shows it): lines that do not
 *   add up to `amount.value`, reckoned Σ (grossPrice × quantity − discountAmount) + amount.grossShippingAmount −
 *   amount.grossDiscount (quantity 1 when absent, the others 0). A `shipping_fee` line is the shipping, so
 *   grossShippingAmount is then not added again; a `discount` line likewise stands for grossDiscount. Lines without
 *   prices (`{name, taxRate}`) are not summed: a real client sends only those (docs/decisions.md).
 */
export function orderItemProblems(body: CreatePaymentRequest | CreateSessionRequest): FieldError[] {
  const items = body.order?.items;
  if (!items || items.length === 0) return [];
  const errors: FieldError[] = [];
  items.forEach((item, i) => {
    const lowersTotal = NEGATIVE_LINE_TYPES.has(lineType(item) ?? '');
    for (const member of ITEM_AMOUNTS) {
      const v = item[member];
      const mayBeNegative = lowersTotal && (member === 'grossPrice' || member === 'netPrice');
      if (v !== undefined && (!Number.isFinite(v) || (v < 0 && !mayBeNegative))) {
        errors.push({ field: `order.items.${i}.${member}`, message: 'must be a finite amount ≥ 0 in minor units' });
      }
    }
  });
  if (errors.length > 0 || !items.every((item) => item.grossPrice !== undefined)) return errors;
  const lines = items.reduce(
    (sum, item) => sum + (item.grossPrice ?? 0) * (item.quantity ?? 1) - (item.discountAmount ?? 0),
    0,
  );
  const hasLine = (type: string) => items.some((item) => lineType(item) === type);
  const shipping = hasLine('shipping_fee') ? 0 : (body.amount.grossShippingAmount ?? 0);
  const discount = hasLine('discount') ? 0 : (body.amount.grossDiscount ?? 0);
  const total = lines + shipping - discount;
  const value = amountValue(body.amount.value);
  if (total !== value) {
    errors.push({
      field: 'order.items',
      message: `lines add up to ${total} (Σ grossPrice × quantity − discountAmount, + grossShippingAmount − grossDiscount unless a shipping_fee or discount line stands for them), not amount.value ${value}`,
    });
  }
  return errors;
}

/**
 * A 4-digit `securityCode` on a Visa or Mastercard number: their CVV2/CVC2 has 3 digits (4 is American Express's CID),
 * so a 4th digit is a typing error or a probe (PCI DSS glossary: card verification code).
 */
export function securityCodeProblems(body: CreatePaymentRequest): FieldError[] {
  const card = body.paymentMethods.card;
  if (card?.number === undefined || card.securityCode === undefined || card.securityCode.length !== 4) return [];
  const brand = detectBrand(card.number);
  if (brand !== 'VISA' && brand !== 'MASTERCARD') return [];
  return [{ field: 'paymentMethods.card.securityCode', message: `must have 3 digits for ${brand}` }];
}

/** The brands Kassa's card step takes: every `CardBrand` (domain/ports/bin-table.ts), the record keeps them complete. */
const KASSA_BRANDS: readonly string[] = Object.keys({ VISA: true, MASTERCARD: true } satisfies Record<CardBrand, true>);

/**
 * A HOSTED payment's or session's `paymentMethods.card.subType` that names brands (any case) but none Kassa takes
 * (`["AMEX"]`): the card step would refuse every card, so the merchant hears it now, naming the field, instead of a
 * cardholder meeting an unpayable page. An empty list, or one naming VISA or MASTERCARD among others (Paygate's
 * `["VISA","MASTERCARD","AMEX"]`), is fine.
 */
export function subTypeProblems(body: CreatePaymentRequest | CreateSessionRequest): FieldError[] {
  // A DIRECT payment's card is already typed: subType limits only what a hosted card step takes (wire §2).
  if (body.paymentMethods?.integrationType === 'DIRECT') return [];
  const subType = body.paymentMethods?.card?.subType;
  if (subType === undefined || subType.length === 0) return [];
  if (subType.some((b) => KASSA_BRANDS.includes(b.toUpperCase()))) return [];
  return [
    {
      field: 'paymentMethods.card.subType',
      message: `names no brand Kassa takes (${KASSA_BRANDS.join(', ')}): no card could pay`,
    },
  ];
}

/** @throws KassaError VALIDATION_FAILED naming each field when `errors` is not empty. */
function refuseIfAny(errors: FieldError[]): void {
  if (errors.length === 0) return;
  throw new KassaError('VALIDATION_FAILED', errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors });
}

/**
 * Maps a validated `POST /payments` body onto the domain command.
 * @throws KassaError VALIDATION_FAILED for order lines, a security code or a subType the schema cannot judge
 *   (`orderItemProblems`, `securityCodeProblems`, `subTypeProblems`).
 */
export function toCreatePaymentCommand(merchantId: string, body: CreatePaymentRequest): CreatePaymentCommand {
  refuseIfAny([...orderItemProblems(body), ...securityCodeProblems(body), ...subTypeProblems(body)]);
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

/**
 * Maps a validated `POST /payments/sessions` body onto the domain command.
 * @throws KassaError VALIDATION_FAILED for order lines that do not add up (`orderItemProblems`), a subType naming no
 *   brand Kassa takes (`subTypeProblems`).
 */
export function toCreateSessionCommand(merchantId: string, body: CreateSessionRequest): CreateSessionCommand {
  refuseIfAny([...orderItemProblems(body), ...subTypeProblems(body)]);
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
