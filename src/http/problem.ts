import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { TEXT_PATTERN } from '../contracts/primitives.js';
import type { Problem } from '../contracts/problem.js';
import { ERROR_CATALOGUE, type ErrorCode, type FieldError, KassaError } from '../domain/errors/error-catalogue.js';

/** Media type of every error body (RFC 9457). */
export const PROBLEM_JSON = 'application/problem+json';

/**
 * The HTTP status of every error code (STYLE.md: one function maps codes to statuses; the domain's catalogue keeps
 * code, title and retryable). docs/errors.md lists the same table; a test keeps them equal.
 */
export const HTTP_STATUS_OF_CODE = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  HEADERS_TOO_LARGE: 431,
  REQUEST_TIMEOUT: 408,
  HTTPS_REQUIRED: 403,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  PAYMENT_NOT_FOUND: 404,
  TRANS_ID_IN_USE: 409,
  PAYMENT_NOT_CAPTURABLE: 409,
  PAYMENT_NOT_REFUNDABLE: 409,
  PAYMENT_NOT_REVERSIBLE: 409,
  CAPTURE_EXCEEDS_AUTHORIZED: 409,
  REFUND_EXCEEDS_CAPTURED: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  CARD_BRAND_NOT_SUPPORTED: 400,
  STORED_CARD_NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  SESSION_EXPIRED: 410,
  SESSION_COMPLETED: 409,
  SESSION_FAILED: 409,
  QUOTE_CHANGED: 409,
  MERCHANT_EXISTS: 409,
  MERCHANT_NOT_FOUND: 404,
  NOTIFICATION_NOT_FOUND: 404,
  NOTIFICATION_NO_TARGET: 409,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  DATABASE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
} as const satisfies Record<ErrorCode, number>;

/**
 * Retry-After (RFC 9110 §10.2.3) of the codes that say "the same request may succeed later", in seconds: a database
 * outage (a failover, a full disk being cleared) is not over at once, and clients that retry immediately only add load.
 */
export const RETRY_AFTER_SECONDS: Partial<Record<ErrorCode, number>> = {
  DATABASE_UNAVAILABLE: 5, // s
};

/** The HTTP status a code is answered with. */
export const httpStatusOf = (code: ErrorCode): number => HTTP_STATUS_OF_CODE[code];

/** Problem type URI of a code: a URN, stable and not pretending to be a web page. */
export const problemType = (code: string): string => `urn:kassa:error:${code}`;

/**
 * The 8-digit responseCode of an API error (DESIGN.md §4): 2 (error) or 4 (fatal, for 5xx) + category 000 +
 * the HTTP status in 4 digits, e.g. 400 → 20000400.
 */
export const responseCodeOfStatus = (status: number): string =>
  `${status >= 500 ? '4' : '2'}000${String(status).padStart(4, '0')}`;

interface AjvError {
  instancePath: string;
  /** Where in the schema the failing keyword is (`#/properties/email/anyOf/0/format`). */
  schemaPath?: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** Set when the error is about an object's key (a `propertyNames` schema), not its value. */
  propertyName?: string;
}

/** The digits-only string form of `amount.value` (contracts/primitives.ts AmountValue). */
const AMOUNT_DIGITS_PATTERN = '^0*[1-9][0-9]{0,10}$';

/** The index of the `anyOf` alternative nearest the failing keyword, from its schemaPath (`…/anyOf/1/maxLength`). */
function alternativeOf(e: AjvError): number | undefined {
  const all = [...(e.schemaPath ?? '').matchAll(/\/anyOf\/(\d+)\//g)];
  const last = all.at(-1)?.[1];
  return last === undefined ? undefined : Number(last);
}

/**
 * One error per failed alternative of an `anyOf` (an integer or a string of digits): a value of one of the
 * alternatives' types is judged by that alternative alone (`0` → "must be >= 1", not also "must be string"); a value
 * of neither type gets one "must be integer or string"; a value every alternative refuses for another reason is judged
 * by the first (an email or "": `"x"` → "must match format email", not also "must NOT have more than 0 characters").
 * Other errors pass unchanged.
 */
function withoutAnyOfNoise(errors: AjvError[]): AjvError[] {
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  if (anyOfPaths.size === 0) return errors;
  const noise = (e: AjvError) => anyOfPaths.has(e.instancePath) && (e.keyword === 'type' || e.keyword === 'anyOf');
  const unfiltered = errors.filter((e) => !noise(e));
  const firstAlternative = new Map<string, number>();
  for (const e of unfiltered) {
    const alternative = alternativeOf(e);
    if (!anyOfPaths.has(e.instancePath) || alternative === undefined) continue;
    firstAlternative.set(e.instancePath, Math.min(firstAlternative.get(e.instancePath) ?? alternative, alternative));
  }
  const kept = unfiltered.filter((e) => {
    const first = firstAlternative.get(e.instancePath);
    const alternative = alternativeOf(e);
    return first === undefined || alternative === undefined || alternative === first;
  });
  // Alternatives that are all formats (an IPv4 or IPv6 address) are named together: the first alone would mislead.
  for (const path of anyOfPaths) {
    const atPath = unfiltered.filter((e) => e.instancePath === path && alternativeOf(e) !== undefined);
    if (atPath.length < 2 || !atPath.every((e) => e.keyword === 'format')) continue;
    const formats = atPath.map((e) => String(e.params.format));
    const index = kept.findIndex((e) => e.instancePath === path);
    if (index < 0) continue;
    kept[index] = {
      instancePath: path,
      keyword: 'format',
      message: `must match format ${formats.join(' or ')}`,
      params: {},
    };
  }
  for (const path of anyOfPaths) {
    if (kept.some((e) => e.instancePath === path)) continue;
    const types = errors.filter((e) => e.instancePath === path && e.keyword === 'type').map((e) => e.params.type);
    const message = types.length > 0 ? `must be ${types.join(' or ')}` : 'must match one of the allowed forms';
    kept.push({ instancePath: path, keyword: 'type', message, params: {} });
  }
  return kept;
}

/** Validation contexts whose fields are named with the context (`headers.x-kassa-actor`). */
const PREFIXED = new Set(['headers']);

/**
 * Field errors of a schema validation failure, as dotted paths into the body (`amount.value`); a path or query
 * parameter by its name alone (`pseudoCardNumber`, `payId`: docs/errors.md), a header as `headers.<name>`.
 */
export function fieldErrorsOfValidation(errors: AjvError[], context: string): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of withoutAnyOfNoise(errors)) {
    // "property name must be valid" sums up the key's own error, which carries `propertyName` and says why.
    if (e.keyword === 'propertyNames') continue;
    const base = e.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const extra = (e.params.missingProperty ?? e.params.additionalProperty) as string | undefined;
    const field = [PREFIXED.has(context) ? context : '', base, extra ?? ''].filter(Boolean).join('.') || context;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') message = 'is required';
    else if (e.keyword === 'additionalProperties') message = 'is not a known field';
    else if (e.keyword === 'pattern' && e.params.pattern === TEXT_PATTERN) {
      message = 'must not contain control characters, lone surrogates or bidirectional overrides';
    } else if (e.keyword === 'pattern' && e.params.pattern === AMOUNT_DIGITS_PATTERN) {
      message = 'must be a string of digits, at least 1 and at most 99999999999';
    } else if (e.keyword === 'enum') message = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    if (e.propertyName !== undefined) message = `a key ${message}`;
    const key = `${field}|${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ field, message });
    }
  }
  return out;
}

/** Sends a problem+json answer for a code. */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  detail?: string,
  errors?: FieldError[],
): FastifyReply {
  const { title } = ERROR_CATALOGUE[code];
  const status = httpStatusOf(code);
  const text = detail ?? title;
  const problem: Problem = {
    type: problemType(code),
    title,
    status,
    detail: text,
    code,
    responseCode: responseCodeOfStatus(status),
    // Paygate's clients print responseDescription (paygate-v2-wire.md §5): the same human text as `detail`.
    responseDescription: text,
    requestId: request.id,
    ...(errors && errors.length > 0 && { errors }),
  };
  const retryAfter = RETRY_AFTER_SECONDS[code];
  if (retryAfter !== undefined && !reply.hasHeader('retry-after')) reply.header('retry-after', retryAfter);
  return reply.status(status).type(PROBLEM_JSON).send(problem);
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
};

/**
 * The error handler: KassaError → its problem; schema validation → VALIDATION_FAILED naming each field;
 * framework 4xx → the matching code; anything else → a generic 500 whose text stays in the log.
 */
export function problemErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof KassaError) {
    if (httpStatusOf(error.code) >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(request, reply, error.code, error.message, error.errors);
  }
  if (error.validation) {
    const errors = fieldErrorsOfValidation(error.validation as AjvError[], error.validationContext ?? 'body');
    return sendProblem(
      request,
      reply,
      'VALIDATION_FAILED',
      errors.map((e) => `${e.field}: ${e.message}`).join('; '),
      errors,
    );
  }
  const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (mapped) return sendProblem(request, reply, mapped);
  if (error instanceof SyntaxError || (error.statusCode === 400 && !error.code)) {
    return sendProblem(request, reply, 'INVALID_JSON');
  }
  if (error.statusCode === 429) return sendProblem(request, reply, 'RATE_LIMITED', error.message);
  if (error.statusCode === 503) return sendProblem(request, reply, 'SERVICE_UNAVAILABLE');
  if (isClientAbort(error)) {
    // Nobody reads the answer; not a database failure for all its ECONNRESET, and no stack to log.
    request.log.info({ code: error.code }, 'client closed the connection before its request body arrived');
    return sendProblem(request, reply, 'VALIDATION_FAILED', 'the request body was cut off');
  }
  if (isDatabaseConnectionFailure(error)) {
    request.log.warn({ err: error }, 'database unreachable');
    return sendProblem(request, reply, 'DATABASE_UNAVAILABLE');
  }
  if (isTransientSqliteFailure(error)) {
    // Logged as an error: a full disk or a failing device needs the operator, though the request may be retried.
    request.log.error({ err: error }, 'database cannot write now');
    return sendProblem(request, reply, 'DATABASE_UNAVAILABLE');
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    request.log.info({ err: error }, 'client error');
    return sendProblem(request, reply, error.statusCode === 404 ? 'NOT_FOUND' : 'VALIDATION_FAILED', error.message);
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendProblem(request, reply, 'INTERNAL_ERROR', `Internal error; quote requestId ${request.id}`);
}

/**
 * Whether the error is Node's `aborted` (code ECONNRESET, which Fastify's body reader marks 400): the client closed
 * its connection while its request body was being read.
 */
function isClientAbort(error: FastifyError): boolean {
  return error.message === 'aborted' && error.code === 'ECONNRESET' && error.statusCode === 400;
}

/** Node socket errors a lost database connection surfaces as. */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/**
 * Whether an error means the database could not be reached (pg's connection errors, PostgreSQL SQLSTATE class 08
 * "connection exception" and 57P01–57P03 "admin shutdown / crash shutdown / cannot connect now"), as opposed to a
 * statement that failed: such a request may be retried as is (503 DATABASE_UNAVAILABLE).
 */
export function isDatabaseConnectionFailure(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (CONNECTION_ERROR_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code)) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /^Connection terminated|not queryable|timeout exceeded when trying to connect|Connection ended unexpectedly/.test(
    message,
  );
}

/**
 * SQLite result codes (better-sqlite3's `SqliteError.code`, carried across the writer thread by
 * sqlite-writer-thread.ts) that say the database cannot work right now, not that the statement is wrong
 * (https://sqlite.org/rescode.html). The failing transaction was rolled back (what the request committed before it,
 * such as a payment's intent, stays, and AuthorizationRecovery finishes it), and the same request may succeed once
 * the condition clears, so it is answered 503 DATABASE_UNAVAILABLE, not 500:
 * - SQLITE_FULL: the disk (or the file system's quota) is full; writes succeed again once space is freed.
 * - SQLITE_IOERR and its extended codes (SQLITE_IOERR_WRITE, _FSYNC, _SHORT_READ, …): the OS refused a read, write or
 *   fsync (ENOSPC on some paths, EIO from a network or failing volume); SQLite rolls back, the next try starts afresh.
 * - SQLITE_BUSY and its extended codes: another connection (the CLI, a backup, a second process) held the write lock
 *   past busy_timeout (5 s).
 * - SQLITE_CANTOPEN and its extended codes: a file SQLite needed (the WAL, its shared-memory index, a temporary file)
 *   could not be opened, e.g. when the process is out of file descriptors.
 * - SQLITE_NOMEM: memory ran out for that statement.
 * Not here, so still a 500 that alerts: SQLITE_CORRUPT and SQLITE_NOTADB (the file is damaged: retrying cannot help),
 * SQLITE_READONLY (the database or its volume was made read-only: it needs the operator, not time), SQLITE_LOCKED (a
 * conflict within Kassa's own connection, a bug), SQLITE_CONSTRAINT and the other statement errors.
 */
const TRANSIENT_SQLITE_CODE = /^SQLITE_(FULL|NOMEM|(IOERR|BUSY|CANTOPEN)(_[A-Z_]+)?)$/;

/** Whether an error is an SQLite condition of the environment that may clear by itself (TRANSIENT_SQLITE_CODE). */
export function isTransientSqliteFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && TRANSIENT_SQLITE_CODE.test(code);
}

/**
 * Whether an error means the database cannot serve the request now, though the request itself is fine: it is answered
 * 503 DATABASE_UNAVAILABLE (the token endpoint: 503 `temporarily_unavailable`) and may be retried as is.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof KassaError) return error.code === 'DATABASE_UNAVAILABLE';
  return isDatabaseConnectionFailure(error) || isTransientSqliteFailure(error);
}
