/** Kassa's answers to hostile input that reaches no route's own validation (issue 14, hostile-input suite). */
import { isUtf8 } from 'node:buffer';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CATALOGUE, type FieldError, KassaError } from '../domain/errors/error-catalogue.js';
import { duplicateMemberPath, nonUtf8Charset } from './plugins/json-body.js';
import { httpStatusOf, PROBLEM_JSON, problemType, responseCodeOfStatus, sendProblem } from './problem.js';
import { oauthError, TOKEN_PATH } from './routes/oauth-token.route.js';

/** The first string inside `value` holding U+0000, as a dotted path (iterative: bodies may nest deeply). */
function nulPath(value: unknown, root: string): string | undefined {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, string];
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
    } else if (v !== null && typeof v === 'object') {
      for (const [key, child] of Object.entries(v)) {
        if (key.includes('\u0000')) return path;
        stack.push([child, path ? `${path}.${key}` : key]);
      }
    }
  }
  return undefined;
}

/** The token request's form members (RFC 6749 §4.4.2, §2.3.1), which a NUL answer may name. */
const TOKEN_FORM_MEMBERS = new Set(['grant_type', 'client_id', 'client_secret', 'scope']);

/**
 * `preValidation` hook: refuses a request carrying U+0000 in a path parameter, the query or a body string with 400
 * VALIDATION_FAILED naming the field. No field of the API or the pages allows it, and PostgreSQL cannot store it in
 * text (it would fail the query with a 500 instead of refusing the input). A callback hook, as the other
 * synchronous hooks: an async one costs a promise and a microtask per request (issue 12).
 */
export function refuseNulCharacters(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const field = nulPath(request.params, '') ?? nulPath(request.query, '') ?? nulPath(request.body, '');
  if (field === undefined) {
    done();
    return;
  }
  // Answered: the request goes no further (a callback hook that sends does not call done).
  if (request.routeOptions.url === TOKEN_PATH) {
    // The token endpoint answers in RFC 6749 §5.2's form, never problem+json; its description names only the form's
    // own members (a member name from the body could hold characters §5.2 does not allow there).
    const named = TOKEN_FORM_MEMBERS.has(field) ? field : 'the request';
    oauthError(reply, 400, 'invalid_request', `${named} must not contain NUL characters`);
    return;
  }
  const errors: FieldError[] = [{ field: field || 'body', message: 'must not contain NUL characters' }];
  sendProblem(request, reply, 'VALIDATION_FAILED', `${errors[0]?.field} must not contain NUL characters`, errors);
}

/** Deepest nesting of arrays and objects a JSON body may have; Kassa's deepest request shape is 4 levels. */
export const MAX_JSON_DEPTH = 32;

/**
 * One pass over `text` (strings skipped): how deep it nests arrays and objects (stops scanning past `limit`) and how
 * many object members it names: in valid JSON each member has exactly one `:` outside strings (RFC 8259 §4).
 */
export function scanJson(text: string, limit = Number.POSITIVE_INFINITY): { depth: number; members: number } {
  let depth = 0;
  let deepest = 0;
  let members = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x3a) members++;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return { depth: deepest, members };
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return { depth: deepest, members };
}

/** How many members the objects in a parsed JSON value have, all levels counted (iterative: bodies may nest deeply). */
export function parsedMemberCount(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
      continue;
    }
    for (const key in v) {
      count++;
      stack.push((v as Record<string, unknown>)[key]);
    }
  }
  return count;
}

/**
 * Content-type parser of `application/json`: refuses a charset other than UTF-8 with 415 UNSUPPORTED_MEDIA_TYPE and
 * bytes that are not UTF-8 with 400 INVALID_JSON (RFC 8259 §8.1: JSON exchanged between systems MUST be UTF-8;
 * decoded as is, each bad byte would be stored as U+FFFD), then a body nested deeper than MAX_JSON_DEPTH with 400
 * INVALID_JSON before parsing it (a body nested 100,000 levels deep parses, but then overflows the stack of whatever
 * walks it, such as JSON.stringify), then parses as Fastify does (prototype poisoning refused), then refuses a body
 * naming a member twice in one object with 400 VALIDATION_FAILED naming the member (`duplicateMemberPath`, run only
 * when the parsed value has fewer members than the text names: scanJson, parsedMemberCount). Its errors go to the
 * route's error handler (the OAuth token endpoint answers in RFC 6749 form).
 */
export function depthLimitedJsonParser(
  parse: (request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void) => void,
) {
  // Registered with `parseAs: 'buffer'` (src/app.ts): the bytes, so that they can be checked before they are decoded.
  return (request: FastifyRequest, body: Buffer, done: (error: Error | null, value?: unknown) => void) => {
    const charset = nonUtf8Charset(request.headers['content-type']);
    if (charset !== undefined) {
      done(
        new KassaError('UNSUPPORTED_MEDIA_TYPE', `the charset ${charset} is not accepted; send JSON in UTF-8`, {
          errors: [{ field: 'content-type', message: `must declare no charset or utf-8 (got ${charset})` }],
        }),
      );
      return;
    }
    // Decoded as a string first, each byte that is not UTF-8 would be U+FFFD already, which the text cannot tell from a
    // U+FFFD the client sent.
    if (!isUtf8(body)) {
      done(new KassaError('INVALID_JSON', 'the body is not valid UTF-8 (RFC 8259 §8.1)'));
      return;
    }
    const text = body.toString('utf8');
    const scanned = scanJson(text, MAX_JSON_DEPTH);
    if (scanned.depth > MAX_JSON_DEPTH) {
      const error = Object.assign(new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`), {
        statusCode: 400,
        code: 'FST_ERR_CTP_INVALID_JSON_BODY',
      });
      done(error);
      return;
    }
    parse(request, text, (error, value) => {
      if (error) return done(error);
      // JSON.parse keeps one property per distinct name: fewer of them than members in the text means a name was
      // repeated, and only then is the text scanned again to name it (issue 12: the scan cost ~2 % of a payment).
      const duplicate = parsedMemberCount(value) < scanned.members ? duplicateMemberPath(text) : undefined;
      if (duplicate !== undefined) {
        return done(
          new KassaError('VALIDATION_FAILED', `${duplicate}: appears more than once in its object`, {
            errors: [{ field: duplicate, message: 'appears more than once in its object' }],
          }),
        );
      }
      done(null, value);
    });
  };
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser cannot read is answered as problem+json, and the
 * connection closed, instead of Node's or Fastify's bare answer: headers over 16 KiB get 431 HEADERS_TOO_LARGE (RFC
 * 6585 §5), a request not sent in time (KASSA_REQUEST_TIMEOUT, KASSA_HEADERS_TIMEOUT) 408 REQUEST_TIMEOUT, anything
 * else (a bad request line, a malformed header) 400 VALIDATION_FAILED. Nothing of the request is echoed.
 */
export function clientErrorProblem(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const [code, reason, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ([
          'HEADERS_TOO_LARGE',
          'Request Header Fields Too Large',
          'the request headers are too large (16 KiB at most)',
        ] as const)
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? (['REQUEST_TIMEOUT', 'Request Timeout', 'the request was not received in time'] as const)
        : (['VALIDATION_FAILED', 'Bad Request', 'the request is not valid HTTP/1.1'] as const);
  const status = httpStatusOf(code);
  const body = JSON.stringify({
    type: problemType(code),
    title: ERROR_CATALOGUE[code].title,
    status,
    detail,
    code,
    responseCode: responseCodeOfStatus(status),
  });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: ${PROBLEM_JSON}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
