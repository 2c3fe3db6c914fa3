import type { CustomFields } from '../contracts/create-request.js';
import type { InformationalFields } from '../domain/payments/payment.js';

/**
 * The merchant's texts on the hosted pages, from Paygate's `template.customFields` and
 * `paymentMethods.card.template.customFields` (paygate-v2-wire.md §2; the card's win over the top-level ones):
 * customField1 the amount text, customField3 the logo URL, customField4 the order description. Preact escapes the
 * texts; the logo is shown only from an https URL (docs/paygate-compatibility.md: an http or data: logo is ignored,
 * never refused, because shop plugins send the shop's configured logo as it is).
 */
export interface MerchantTexts {
  amountText?: string;
  orderDescription?: string;
  /** An https URL without credentials. */
  logoUrl?: string;
  /** The logo's origin, the one source the page's CSP allows for `img-src`. */
  logoOrigin?: string;
}

/** A CSP-safe https origin: scheme, host name (or bracketed IPv6) and port only. */
const SAFE_HTTPS_ORIGIN = /^https:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/** The https logo URL and its origin, or undefined for anything else (http:, data:, credentials, unparsable). */
export function httpsLogo(url: string | undefined): { url: string; origin: string } | undefined {
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' || parsed.username !== '' || parsed.password !== '') return undefined;
  return SAFE_HTTPS_ORIGIN.test(parsed.origin) ? { url: parsed.href, origin: parsed.origin } : undefined;
}

/** The texts and logo of a payment's or session's informational fields. */
export function merchantTextsOf(info: InformationalFields | undefined): MerchantTexts {
  const fields: CustomFields = { ...info?.template?.customFields, ...info?.card?.template?.customFields };
  const text = (s: string | undefined) => (s?.trim() ? s.trim() : undefined);
  const logo = httpsLogo(fields.customField3);
  return {
    ...(text(fields.customField1) && { amountText: text(fields.customField1) }),
    ...(text(fields.customField4) && { orderDescription: text(fields.customField4) }),
    ...(logo && { logoUrl: logo.url, logoOrigin: logo.origin }),
  };
}

/** The merchant's logo, order description and amount text above a hosted page's heading. */
export function MerchantHeader(props: { texts: MerchantTexts; merchantName: string }) {
  const { texts } = props;
  if (!texts.logoUrl && !texts.orderDescription && !texts.amountText) return null;
  return (
    <div class="merchant-texts">
      {texts.logoUrl && <img class="logo" src={texts.logoUrl} alt={props.merchantName} />}
      {texts.orderDescription && <p class="order-description">{texts.orderDescription}</p>}
      {texts.amountText && <p class="amount-text">{texts.amountText}</p>}
    </div>
  );
}
