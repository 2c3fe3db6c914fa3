import type { Payment } from './payment.js';

/** Whether the cardholder ended the payment: cancelled the 3-D Secure challenge (20010003) or the hosted page (20040002). */
export function isCancelledByCardholder(payment: Payment): boolean {
  return payment.responseCode === '20010003' || payment.responseCode === '20040002';
}

/**
 * A declined (not cancelled) try inside a hosted payment page session: while the session is open, the cardholder may
 * try another card under the same transId (DESIGN.md §4).
 */
export function mayRetryInSession(payment: Payment): boolean {
  return payment.sessionId !== undefined && payment.status === 'FAILED' && !isCancelledByCardholder(payment);
}

/**
 * Where the cardholder's browser goes when a payment's 3-D Secure pages are done (DESIGN.md §4): urls.cancel after
 * a challenge (20010003) or hosted payment (20040002) the cardholder cancelled, when the merchant gave one, else
 * urls.return; with `PayID=<payId>` added by {@link withPayId}. Undefined when the merchant gave neither (the page then
 * shows the outcome itself).
 */
export function returnUrlOf(payment: Payment): string | undefined {
  const target = isCancelledByCardholder(payment)
    ? (payment.urls?.cancel ?? payment.urls?.return)
    : payment.urls?.return;
  if (target === undefined) return undefined;
  return withPayId(target, payment.payId);
}

/**
 * The merchant's URL (an RFC 3986 URI: the contract's `Url`) with `PayID=<payId>` as the last pair of its query and
 * nothing else changed, byte for byte: `?PayID=…` when there is no query, `&PayID=…` after one (without the `&` when
 * the query ends in `&` or is empty), before any `#fragment`. A pair already named `PayID` (decoded, exact: a reused
 * URL) is dropped, so the merchant reads Kassa's. Re-serializing instead (`URL.searchParams`) rewrites `%20` as `+`,
 * `~` as `%7E` and WooCommerce's `&amp;` separators, which breaks signed and exact-match return URLs.
 * Source: paygate-v2-wire.md §6 (the official plugins read `PayID`, case-sensitive).
 * @example withPayId('https://shop.example/r?sig=a%20b~c#top', 'f0…') === 'https://shop.example/r?sig=a%20b~c&PayID=f0…#top'
 */
export function withPayId(url: string, payId: string): string {
  const hash = url.indexOf('#');
  const beforeFragment = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? '' : url.slice(hash);
  const added = `PayID=${encodeURIComponent(payId)}`;
  const question = beforeFragment.indexOf('?');
  if (question === -1) return `${beforeFragment}?${added}${fragment}`;
  const query = beforeFragment
    .slice(question + 1)
    .split('&')
    .filter((pair) => queryNameOf(pair) !== 'PayID')
    .join('&');
  const separator = query === '' || query.endsWith('&') ? '' : '&';
  return `${beforeFragment.slice(0, question + 1)}${query}${separator}${added}${fragment}`;
}

/**
 * A query pair's name (`name=value`, or `name` alone) as a server reads it (application/x-www-form-urlencoded: `+` is a
 * space, then percent-decoding); undefined when its escapes are malformed.
 */
export function queryNameOf(pair: string): string | undefined {
  const equals = pair.indexOf('=');
  const raw = (equals === -1 ? pair : pair.slice(0, equals)).replaceAll('+', ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}
