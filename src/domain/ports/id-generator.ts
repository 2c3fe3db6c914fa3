/** Identifiers and randomness, as the domain sees them (so that domain tests need no I/O). */
export interface IdGenerator {
  /** A random RFC 4122 version 4 UUID in canonical form (lowercase, with dashes). */
  uuid(): string;
  /**
   * A time-ordered RFC 9562 version 7 UUID in canonical form: a 48-bit Unix timestamp in milliseconds, a 42-bit
   * counter that starts at a random value each millisecond (RFC 9562 §6.2, method 1), then 32 random bits. Ids made
   * later sort later, so a database index over them grows at its end instead of at random places (issue 12: a
   * payment's inserts touch the same few index pages however many rows the tables hold).
   */
  timeOrderedUuid(): string;
  /** `bytes` cryptographically random bytes encoded as base64url (no padding). */
  randomToken(bytes: number): string;
}

/**
 * Kassa's 32-hex ids, a UUID without dashes, lowercase: payId is a version 4 UUID (DESIGN.md §4: its
 * threeDSServerTransID is the same UUID); xId, sessionId and message ids are version 7 (time-ordered, newHexId).
 */
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

/**
 * A fresh 32-hex id for an operation (xId), a session or a message: `ids.timeOrderedUuid()` without dashes (a
 * millisecond timestamp, a counter from a random start and random bits, so ids stay unguessable and their indexes
 * grow at the end).
 */
export function newHexId(ids: IdGenerator): string {
  return ids.timeOrderedUuid().replaceAll('-', '').toLowerCase();
}
