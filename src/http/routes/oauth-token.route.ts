import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { MerchantService } from '../../domain/merchants/merchant-service.js';
import type { AccessTokens } from '../auth/access-tokens.js';
import { parseBasicAuthorization } from '../auth/basic-credentials.js';
import type { AuthFailureLimit } from '../auth/failure-limit.js';
import { isDatabaseUnavailable, RETRY_AFTER_SECONDS } from '../problem.js';

/**
 * RFC 6749 §5.2's codes, plus `temporarily_unavailable` and `server_error`, which RFC 6749 §4.1.2.1 defines for the
 * authorization endpoint and OAuth servers answer at the token endpoint too (a 503 or 500 the client may retry).
 */
type OAuthError =
  | 'invalid_request'
  | 'invalid_client'
  | 'unsupported_grant_type'
  | 'invalid_grant'
  | 'temporarily_unavailable'
  | 'server_error';

/** The token endpoint's path (spec §4.1). */
export const TOKEN_PATH = '/authorization/oauth/token';

/** RFC 6749 §5.2 error answer, never cached. */
export function oauthError(
  reply: FastifyReply,
  status: number,
  error: OAuthError | 'too_many_requests',
  description: string,
) {
  if (error === 'invalid_client') reply.header('www-authenticate', 'Basic realm="kassa"');
  return reply
    .status(status)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .type('application/json')
    .send({ error, error_description: description });
}

/**
 * The token request form (RFC 6749 §4.4.2, client authentication §2.3.1). Every member is optional here so that a
 * missing one gets its RFC 6749 §5.2 error from the handler; a repeated parameter (an array after form parsing) is
 * refused as `invalid_request` (RFC 6749 §3.1: parameters MUST NOT be included more than once).
 */
const TokenFormSchema = Type.Object({
  grant_type: Type.Optional(
    Type.String({ description: 'Required: `client_credentials` (without it: 400 `invalid_request`)' }),
  ),
  client_id: Type.Optional(Type.String({ description: 'The merchantId, unless sent in the Basic header' })),
  client_secret: Type.Optional(Type.String({ description: 'An API key, unless sent in the Basic header' })),
  scope: Type.Optional(Type.String({ description: 'Ignored: Kassa has no scopes' })),
});

/** The RFC 6749 §5.2 error body of the token endpoint (not problem+json). */
const OAuthErrorSchema = Type.Object(
  {
    error: Type.Enum(
      [
        'invalid_request',
        'invalid_client',
        'unsupported_grant_type',
        'invalid_grant',
        'too_many_requests',
        'temporarily_unavailable',
        'server_error',
      ],
      { description: 'RFC 6749 §5.2 code; too_many_requests (429), temporarily_unavailable (503), server_error (500)' },
    ),
    error_description: Type.String(),
  },
  { description: 'RFC 6749 §5.2 error answer (Cache-Control: no-store)' },
);

/**
 * `POST /authorization/oauth/token` (spec §4.1, §5.2): OAuth 2 client credentials grant (RFC 6749 §4.4).
 * Client authentication by form fields or an HTTP Basic header (RFC 6749 §2.3.1). Rate limited per IP and client.
 */
export async function oauthTokenRoute(
  fastify: FastifyInstance,
  opts: {
    merchants: MerchantService;
    tokens: AccessTokens;
    failures: AuthFailureLimit;
    /** Requests one client address may make in a minute (`KASSA_TOKEN_REQUESTS_PER_IP`, config.ts). */
    requestsPerMinute: number;
  },
) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const perIp = app.createRateLimit({ max: opts.requestsPerMinute, timeWindow: '1 minute' });

  app.post(
    TOKEN_PATH,
    {
      schema: {
        summary: 'Obtain an access token (OAuth 2 client credentials)',
        tags: ['auth'],
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenFormSchema,
        description:
          'Client authentication by `client_id` and `client_secret` in the form, or by an HTTP Basic header of ' +
          'merchantId:apiKey (RFC 6749 §2.3.1), not both. Answers and errors are RFC 6749 JSON, never problem+json.',
        // No access token is needed to get one: the Basic header, or no header and the credentials in the form.
        security: [{ basic: [] }, {}],
        response: {
          200: {
            type: 'object',
            required: ['access_token', 'token_type', 'expires_in'],
            properties: {
              access_token: { type: 'string' },
              token_type: { type: 'string', enum: ['Bearer'] },
              expires_in: { type: 'integer', description: 'seconds' },
            },
          },
          400: { ...OAuthErrorSchema, description: 'invalid_request or unsupported_grant_type' },
          401: { ...OAuthErrorSchema, description: 'invalid_client (with WWW-Authenticate)' },
          413: { ...OAuthErrorSchema, description: 'invalid_request: the body is too large' },
          429: { ...OAuthErrorSchema, description: 'too_many_requests (with Retry-After)' },
          500: { ...OAuthErrorSchema, description: 'server_error' },
          503: { ...OAuthErrorSchema, description: 'temporarily_unavailable (with Retry-After)' },
        },
      },
      // The route answers in RFC 6749 form, not problem+json. Only errors of the request itself are a 400: a client
      // takes a 400 as final, so a database outage (503) or a fault of Kassa's (500) must not look like one.
      errorHandler: (error, request, reply) => {
        if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || error.code === 'UNSUPPORTED_MEDIA_TYPE') {
          return oauthError(reply, 400, 'invalid_request', 'content-type must be application/x-www-form-urlencoded');
        }
        // RFC 6749 §5.2 names no error for size; the status says it, as the JSON APIs' 413 PAYLOAD_TOO_LARGE does.
        if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
          return oauthError(reply, 413, 'invalid_request', 'the request body is too large');
        }
        if (isDatabaseUnavailable(error)) {
          request.log.warn({ err: error }, 'database unavailable');
          reply.header('retry-after', RETRY_AFTER_SECONDS.DATABASE_UNAVAILABLE);
          return oauthError(reply, 503, 'temporarily_unavailable', 'the database is unavailable; retry later');
        }
        if (error.validation || error instanceof SyntaxError || (error.statusCode ?? 500) < 500) {
          const field = error.validation?.[0]?.instancePath.slice(1);
          return oauthError(
            reply,
            400,
            'invalid_request',
            field ? `${field} must be given once, as a string` : 'malformed request body',
          );
        }
        request.log.error({ err: error }, 'unhandled error');
        return oauthError(reply, 500, 'server_error', `internal error; quote requestId ${request.id}`);
      },
    },
    async (request, reply) => {
      const limit = await perIp(request);
      if (!limit.isAllowed && limit.isExceeded) {
        reply.header('retry-after', Math.ceil(limit.ttlInSeconds ?? 60));
        return oauthError(reply, 429, 'too_many_requests', 'too many token requests; retry later');
      }
      if (!request.headers['content-type']?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
        return oauthError(reply, 400, 'invalid_request', 'content-type must be application/x-www-form-urlencoded');
      }
      const form = request.body ?? {};
      if (!form.grant_type) return oauthError(reply, 400, 'invalid_request', 'grant_type is required');
      if (form.grant_type !== 'client_credentials') {
        return oauthError(reply, 400, 'unsupported_grant_type', 'only client_credentials is supported');
      }
      const basic = parseBasicAuthorization(request.headers.authorization);
      // RFC 6749 §2.3.1: one authentication method; client_id alone in the form only identifies the client (§3.2.1)
      // and may accompany the Basic header when it names the same client.
      if (basic && form.client_secret) {
        return oauthError(reply, 400, 'invalid_request', 'use one client authentication method, not two');
      }
      if (basic && form.client_id && form.client_id !== basic.id) {
        return oauthError(reply, 400, 'invalid_request', 'client_id differs from the client of the Basic credentials');
      }
      const clientId = basic?.id ?? form.client_id;
      const clientSecret = basic?.secret ?? form.client_secret;
      if (!clientId || !clientSecret) {
        return oauthError(reply, 401, 'invalid_client', 'client_id and client_secret are required');
      }
      if (await opts.failures.blocked(clientId, request.ip)) {
        reply.header('retry-after', opts.failures.retryAfterSeconds());
        return oauthError(reply, 429, 'too_many_requests', 'too many failed authentications; retry later');
      }
      const auth = await opts.merchants.authenticateApiKey(clientId, clientSecret);
      if (!auth) {
        await opts.failures.failed(clientId, request.ip);
        return oauthError(reply, 401, 'invalid_client', 'client authentication failed');
      }
      const accessToken = await opts.tokens.issue({ merchantId: auth.merchant.merchantId, keyId: auth.keyId });
      return reply
        .header('cache-control', 'no-store')
        .header('pragma', 'no-cache')
        .send({ access_token: accessToken, token_type: 'Bearer', expires_in: opts.tokens.ttlSeconds });
    },
  );
}
