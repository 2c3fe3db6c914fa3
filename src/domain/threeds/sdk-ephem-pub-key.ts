import { createPublicKey } from 'node:crypto';

/**
 * The problem with an EMV 3DS SDK's ephemeral public key (EMVCo `sdkEphemPubKey`, a JWK object), if any: it must be
 * an EC P-256 public key (`kty` EC, `crv` P-256, base64url `x` and `y`) whose point lies on the curve, each
 * coordinate below the field prime (RFC 7518 §6.2.1; SEC 1 §3.2.2.1). The ACS derives the app challenge's keys from
 * it by ECDH, which is only defined on a curve point (an off-curve point also opens invalid-curve attacks). The point
 * is checked by Node's `crypto.createPublicKey` (OpenSSL), not by curve arithmetic of Kassa's own.
 * Members other than kty, crv, x and y (kid, use, alg) are ignored; the request schema refuses `d`.
 * @returns a message, or undefined when the key is a P-256 public key.
 */
export function sdkEphemPubKeyProblem(jwk: Record<string, unknown>): string | undefined {
  const { kty, crv, x, y } = jwk;
  if (kty !== 'EC' || crv !== 'P-256' || typeof x !== 'string' || typeof y !== 'string') {
    return 'must be an EC P-256 public key as a JWK (kty EC, crv P-256, x, y)';
  }
  try {
    createPublicKey({ key: { kty, crv, x, y }, format: 'jwk' });
    return undefined;
  } catch {
    return 'is not a point on the P-256 curve (RFC 7518 §6.2.1)';
  }
}
