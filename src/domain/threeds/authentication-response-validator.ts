/**
 * Validation of `authenticationResponse` objects before they are emitted (DESIGN.md §5: a failure is a bug that is
 * logged and counted, never sent). Pure: Ajv compiles the schema in memory; no I/O.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { authenticationResponseSchema } from './authentication-response.schema.js';

// ajv-formats is CommonJS (`module.exports = plugin; exports.default = plugin`); under NodeNext TypeScript types the
// default import as the module object, so take its `default`, which is the plugin at run time as well.
const addFormats = addFormatsModule.default;

/** Result of validateAuthenticationResponse: errors are human-readable `<JSON pointer> <message>` lines. */
export type AuthenticationResponseValidation = { ok: true } | { ok: false; errors: string[] };

let compiled: ValidateFunction | undefined;

/** The compiled schema, built on first use and reused (compiling costs milliseconds; validating microseconds). */
function schemaValidator(): ValidateFunction {
  if (compiled === undefined) {
    // strictTypes and strictRequired off: the spec §3 `if/then` fragments name only the keywords they add, not the
    // type or the property definitions again.
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
    addFormats(ajv, ['uri']);
    compiled = ajv.compile(authenticationResponseSchema);
  }
  return compiled;
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '/' : error.instancePath;
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})`
      : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}

/**
 * Checks an object against the published JSON Schema (spec §2.1–§2.3, the transStatus rules of spec §3, spec §9.2)
 * and against the cross-field rules JSON Schema cannot state (spec §2.3): for transStatus C, challengeRequest
 * repeats threeDSServerTransID, acsTransID and messageVersion of the response, and base64EncodedChallengeRequest
 * decodes to exactly the JSON of challengeRequest.
 * @param obj anything (typically a freshly built AuthenticationResponse, or a parsed notification body member).
 * @returns `{ ok: true }`, or `{ ok: false, errors }` with one line per violation. Never throws.
 */
export function validateAuthenticationResponse(obj: unknown): AuthenticationResponseValidation {
  const validate = schemaValidator();
  if (!validate(obj)) return { ok: false, errors: (validate.errors ?? []).map(describe) };

  const errors: string[] = [];
  const response = obj as Record<string, unknown>;
  if (response.transStatus === 'C') {
    const request = response.challengeRequest as Record<string, unknown>;
    for (const member of ['threeDSServerTransID', 'acsTransID', 'messageVersion']) {
      if (request[member] !== response[member]) errors.push(`/challengeRequest/${member} must equal /${member}`);
    }
    const decoded = Buffer.from(String(response.base64EncodedChallengeRequest), 'base64').toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(decoded);
    } catch {
      parsed = undefined;
    }
    if (!sameJson(parsed, request)) {
      errors.push('/base64EncodedChallengeRequest must be the Base64 of the JSON of /challengeRequest');
    }
  }
  return errors.length === 0 ? { ok: true } : { ok: false, errors };
}

/** Same members with the same string values (the challenge request is flat). */
function sameJson(a: unknown, b: Record<string, unknown>): boolean {
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return false;
  const left = a as Record<string, unknown>;
  const keys = Object.keys(b);
  return Object.keys(left).length === keys.length && keys.every((k) => left[k] === b[k]);
}
