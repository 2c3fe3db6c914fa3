/**
 * What of a request the log keeps (pino serializers): method and URL with every query value redacted except a few
 * harmless ones, and every card number in it masked. Query strings carry secrets: `client_secret` of a misbehaving
 * OAuth client, the signed `t` tokens of hosted-page and 3-D Secure links, a `token` of the 3DS Method step (PCI DSS
 * 3.3, 8.3.2: no credential in logs). Paths and the values kept carry card numbers a merchant sent by mistake, as a
 * transId or a payId (PCI DSS 3.4.1: a PAN is never stored readable, logs included).
 */
import type { FastifyRequest } from 'fastify';
import { maskCardNumbers } from '../../domain/payments/card-number-mask.js';
import { queryNameOf } from '../../domain/payments/return-url.js';

/** Query parameters whose values say nothing secret, logged as they are; every other value is `[redacted]`. */
const LOGGED_QUERY_PARAMETERS = new Set(['payId', 'PayID', 'lang', 'language']);

/** The marker standing in for a redacted value. */
export const REDACTED = '[redacted]';

/**
 * `url` with the value of every query parameter outside LOGGED_QUERY_PARAMETERS replaced by `[redacted]` (names kept,
 * so a log still shows what was sent). A URL without a query is returned as is.
 */
export function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      // A malformed name (undefined) is kept encoded; its value is redacted all the same.
      const name = queryNameOf(pair);
      if (eq < 0 || (name !== undefined && LOGGED_QUERY_PARAMETERS.has(name))) return pair;
      return `${pair.slice(0, eq)}=${REDACTED}`;
    });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

/**
 * Pino serializer of `req` (Fastify's own shape: method, url, host, remote address and port), URL redacted
 * (`redactQuery`) and its card numbers masked (`maskCardNumbers`).
 */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: maskCardNumbers(redactQuery(request.url)),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
