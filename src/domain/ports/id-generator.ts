/** Identifiers and randomness, as the domain sees them (so that domain tests need no I/O). */
export interface IdGenerator {
  /** A random RFC 4122 version 4 UUID in canonical form (lowercase, with dashes). */
  uuid(): string;
  /** `bytes` cryptographically random bytes encoded as base64url (no padding). */
  randomToken(bytes: number): string;
}

/** Kassa's 32-hex ids (payId, xId, sessionId, message ids): a UUID v4 without dashes, lowercase (DESIGN.md §4). */
export const HEX_ID_PATTERN = /^[0-9a-f]{32}$/;

/** An RFC 4122 UUID in canonical form, any case (EMVCo transaction ids: threeDSServerTransID, acsTransID, …). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a 32-hex id (payId, sessionId, xId). Never throws. */
export function isHexId(value: unknown): value is string {
  return typeof value === 'string' && HEX_ID_PATTERN.test(value);
}

/** Whether `value` is a canonical UUID. Never throws. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

/** A fresh 32-hex id for an operation (xId), a session or a message: 122 random bits from `ids.uuid()`. */
export function newHexId(ids: IdGenerator): string {
  return ids.uuid().replaceAll('-', '').toLowerCase();
}
