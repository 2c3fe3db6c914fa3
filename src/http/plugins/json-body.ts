/**
 * What a JSON route accepts as a body, beyond its schema: the media type `application/json` in UTF-8 (415 otherwise),
 * bytes that are UTF-8 (400) and no member name twice in one object (400).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import jsonc from 'jsonc-parser';
import { sendProblem } from '../problem.js';

/**
 * The dotted path (`amount.value`, array indices as numbers: `order.items.0.name`) of the first member whose name
 * appears twice in the same object of `text`, or undefined. `text` must be valid JSON (parse it first): jsonc-parser's
 * scanner is lenient (comments, trailing commas). RFC 8259 §4 leaves duplicate names' meaning to the parser;
 * JSON.parse keeps the last one, another parser in front of Kassa (a WAF, a logging proxy) may keep the first, so a
 * body with duplicates could be checked as one payment and executed as another.
 */
export function duplicateMemberPath(text: string): string | undefined {
  const seen: Set<string>[] = [];
  let duplicate: string | undefined;
  jsonc.visit(text, {
    onObjectBegin: () => {
      seen.push(new Set());
      return duplicate === undefined;
    },
    onObjectEnd: () => {
      seen.pop();
    },
    onObjectProperty: (name, _offset, _length, _line, _character, pathSupplier) => {
      const names = seen[seen.length - 1];
      if (duplicate !== undefined || names === undefined) return;
      if (names.has(name)) duplicate = [...pathSupplier(), name].join('.');
      else names.add(name);
    },
  });
  return duplicate;
}

/** Media types a JSON route takes: `application/json` (parameters such as `charset=utf-8` allowed). */
const JSON_MEDIA_TYPE = 'application/json';

/**
 * The `charset` labels a JSON body may be declared in: JSON exchanged between systems MUST be UTF-8 (RFC 8259 §8.1).
 * `utf8` is the WHATWG Encoding Standard's other label of UTF-8, sent by some clients; the bytes are checked as UTF-8
 * whatever the label says.
 */
const JSON_CHARSETS = new Set(['utf-8', 'utf8']);

/** The Content-Type's media type, lowercase, without parameters; undefined without the header. */
function mediaTypeOf(request: FastifyRequest): string | undefined {
  return request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
}

/**
 * A `charset` parameter of a Content-Type: RFC 9110 §8.3.2 allows its value quoted and makes charset names
 * case-insensitive. Global: exec walks every one (a regex rather than split and slice: 0.15 µs instead of 0.7).
 */
const CHARSET_PARAMETER = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/gi;

/**
 * The first `charset` parameter of a Content-Type that is not UTF-8 (lowercase, unquoted), or undefined when there is
 * none or each is `utf-8` / `utf8`.
 */
export function nonUtf8Charset(contentType: string | undefined): string | undefined {
  if (contentType === undefined || !contentType.includes(';')) return undefined;
  CHARSET_PARAMETER.lastIndex = 0;
  for (let m = CHARSET_PARAMETER.exec(contentType); m !== null; m = CHARSET_PARAMETER.exec(contentType)) {
    const charset = (m[1] ?? m[2] ?? '').toLowerCase();
    if (!JSON_CHARSETS.has(charset)) return charset;
  }
  return undefined;
}

/** Whether a request carries a body (RFC 9112 §6.3: a Content-Length above 0, or a Transfer-Encoding). */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The request's Content-Encoding other than `identity` (lower case), or undefined when it has none. */
function contentCodingOf(request: FastifyRequest): string | undefined {
  const header = request.headers['content-encoding'];
  const coding = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim().toLowerCase();
  return coding === '' || coding === 'identity' ? undefined : coding;
}

/**
 * `preParsing` hook of the JSON APIs (merchant API, admin API): a body in any other media type than
 * `application/json` — `text/plain`, a form, `application/problem+json` (an answer type, not a request type), or none
 * at all — is answered 415 UNSUPPORTED_MEDIA_TYPE naming the media type, before it is parsed; so is a body with a
 * Content-Encoding (gzip, br, …), which Kassa does not decode. It runs after
 * authentication (an `onRequest` hook), so an unauthenticated caller learns nothing about the route. Routes that take
 * forms (the OAuth token endpoint, RFC 6749 §4.4; the hosted pages) are outside these prefixes.
 * A callback hook: an async one costs a promise and a microtask per request (issue 12).
 * @param prefixes URL prefixes of the JSON APIs (`/api/v1/`, …).
 */
export function requireJsonBodies(prefixes: readonly string[]) {
  return function requireJsonBody<P>(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: P,
    done: (error: null, payload: P) => void,
  ): void {
    const checked = hasBody(request) && prefixes.some((p) => request.url.startsWith(p));
    const coding = checked ? contentCodingOf(request) : undefined;
    if (coding !== undefined) {
      // RFC 9110 §8.4.1, §15.5.16: a content coding the server does not decode is 415, with Accept-Encoding saying
      // which it takes (§12.5.3); reading the coded bytes as JSON would refuse them as "not UTF-8" (gzip) or, worse,
      // parse them (a plain body labelled br).
      reply.header('accept-encoding', 'identity');
      sendProblem(
        request,
        reply,
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Encoding ${coding} is not accepted; send the body as is`,
        [{ field: 'content-encoding', message: `must be absent or identity (got ${coding})` }],
      );
      return;
    }
    const mediaType = checked ? mediaTypeOf(request) : undefined;
    if (!checked || mediaType === JSON_MEDIA_TYPE) {
      done(null, payload);
      return;
    }
    const named = mediaType ? `the media type ${mediaType}` : 'a body without Content-Type';
    // Answered: the request goes no further (a callback hook that sends does not call done).
    sendProblem(request, reply, 'UNSUPPORTED_MEDIA_TYPE', `${named} is not accepted; send ${JSON_MEDIA_TYPE}`, [
      { field: 'content-type', message: `must be ${JSON_MEDIA_TYPE} (got ${mediaType ?? 'none'})` },
    ]);
  };
}
