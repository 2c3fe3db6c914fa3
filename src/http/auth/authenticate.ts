import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Merchant } from '../../domain/merchants/merchant.js';
import { sendProblem } from '../problem.js';
import type { AccessTokens } from './access-tokens.js';
import { parseBasicAuthorization } from './basic-credentials.js';
import type { CredentialCache } from './credential-cache.js';
import type { AuthFailureLimit } from './failure-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated merchant; set by the auth pre-handler on /api/v1 routes. */
    merchant?: Merchant;
    /**
     * The route's first read, when the auth pre-handler's credentials read ran it in the same statement
     * (`MerchantAuthOptions.alongside`); undefined when the route must read it itself.
     */
    readAlongside?: { value: unknown };
  }
}

/** Options of `merchantAuth`. */
export interface MerchantAuthOptions {
  /**
   * The read the route starts with, for the merchant the request names (HTTP Basic's user id), as a storage adapter
   * runs it alongside the credentials read (issue 12: on SQLite a lookup by payId or transId and the credentials check
   * are one statement). Undefined: nothing to read alongside. Its value reaches the route as `request.readAlongside`
   * only once that merchant is authenticated; it is dropped otherwise.
   */
  alongside?: (request: FastifyRequest, merchantId: string) => object | undefined;
}

/** The authenticated merchant of a request that passed `merchantAuth`. */
export function merchantOf(request: FastifyRequest): Merchant {
  if (!request.merchant) throw new Error('route is missing the merchant auth pre-handler');
  return request.merchant;
}

/**
 * Pre-handler authenticating a merchant by HTTP Basic (spec §5.1) or an OAuth 2 Bearer token (spec §5.2).
 * Every failure answers the same 401, whether the merchant exists or not. Lookups go through the credential cache
 * (revocation effective at once on every node).
 */
export function merchantAuth(
  credentials: CredentialCache,
  tokens: AccessTokens,
  failures?: AuthFailureLimit,
  options: MerchantAuthOptions = {},
) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    let merchant: Merchant | undefined;
    const basic = parseBasicAuthorization(header);
    if (basic) {
      // Failed Basic authentications are limited per merchant id and source address, like the token endpoint's.
      // With the failure count comes the credentials epoch, when both are in the database (one read).
      const alongside = failures && options.alongside?.(request, basic.id);
      const precheck = failures ? await failures.precheck(basic.id, request.ip, alongside) : undefined;
      if (failures && precheck?.blocked) {
        reply.header('retry-after', failures.retryAfterSeconds());
        await sendProblem(request, reply, 'RATE_LIMITED', 'too many failed authentications; retry later');
        return;
      }
      merchant = await credentials.byApiKey(basic.id, basic.secret, precheck?.epoch);
      if (!merchant) await failures?.failed(basic.id, request.ip);
      // Read in the same snapshot as the epoch the credentials were checked under, for the merchant it names.
      else if (precheck?.alongside !== undefined && merchant.merchantId === basic.id) {
        request.readAlongside = precheck.alongside;
      }
    } else {
      const bearer = header?.match(/^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i)?.[1];
      const claims = bearer ? await tokens.verify(bearer) : undefined;
      if (claims) merchant = await credentials.byKeyId(claims.merchantId, claims.keyId);
    }
    if (!merchant) {
      // RFC 6750 §3.1: a presented Bearer token that is expired, revoked or malformed is named invalid_token (clients
      // fetch a new token on it); a request without credentials, or with Basic ones, gets no error code.
      const bearerPresented = !basic && header !== undefined && /^Bearer(\s|$)/i.test(header);
      reply.header(
        'www-authenticate',
        bearerPresented
          ? 'Basic realm="kassa", Bearer realm="kassa", error="invalid_token"'
          : 'Basic realm="kassa", Bearer realm="kassa"',
      );
      await sendProblem(request, reply, 'UNAUTHORIZED');
      return;
    }
    request.merchant = merchant;
  };
}
