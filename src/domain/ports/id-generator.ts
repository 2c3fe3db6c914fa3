/** Identifiers and randomness, as the domain sees them (so that domain tests need no I/O). */
export interface IdGenerator {
  /** A random RFC 4122 version 4 UUID in canonical form (lowercase, with dashes). */
  uuid(): string;
  /** `bytes` cryptographically random bytes encoded as base64url (no padding). */
  randomToken(bytes: number): string;
}
