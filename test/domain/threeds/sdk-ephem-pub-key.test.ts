import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sdkEphemPubKeyProblem } from '../../../src/domain/threeds/sdk-ephem-pub-key.js';

const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');
// P-256 (FIPS 186-4 D.1.2.3): the field prime p and the base point G.
const P = 'ffffffff00000001000000000000000000000000ffffffffffffffffffffffff';
const GX = '6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296';
const GY = '4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5';
const GY_PLUS_1 = '4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f6';
const ZERO = 'A'.repeat(43);
const jwk = (x: string, y: string) => ({ kty: 'EC', crv: 'P-256', x, y });

describe('sdkEphemPubKeyProblem: the SDK ephemeral key is a P-256 public key (RFC 7518 §6.2.1)', () => {
  it('a public key generated on P-256 (kid, use and alg beside it) has no problem', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const key = { ...publicKey.export({ format: 'jwk' }), kid: 'sdk-1', use: 'enc', alg: 'ECDH-ES' };
    expect(sdkEphemPubKeyProblem(key)).toBeUndefined();
  });

  it('the base point G has no problem', () => {
    expect(sdkEphemPubKeyProblem(jwk(b64(GX), b64(GY)))).toBeUndefined();
  });

  // Security: the ACS runs ECDH with this key; an off-curve point makes it undefined (invalid-curve attacks).
  it.each([
    ['G with y + 1 (off the curve)', jwk(b64(GX), b64(GY_PLUS_1))],
    ['the all-zero point', jwk(ZERO, ZERO)],
    ['x equal to the field prime p', jwk(b64(P), ZERO)],
    ['y equal to the field prime p', jwk(b64(GX), b64(P))],
  ])('%s is not a point on the curve', (_name, key) => {
    expect(sdkEphemPubKeyProblem(key)).toBe('is not a point on the P-256 curve (RFC 7518 §6.2.1)');
  });

  it.each([
    ['an RSA key', { kty: 'RSA', n: 'x', e: 'AQAB' }],
    ['a P-384 key', { ...jwk(b64(GX), b64(GY)), crv: 'P-384' }],
    ['a numeric coordinate', { ...jwk(b64(GX), b64(GY)), x: 12 }],
    ['no y', { kty: 'EC', crv: 'P-256', x: b64(GX) }],
  ])('%s is not a P-256 public key', (_name, key) => {
    expect(sdkEphemPubKeyProblem(key)).toMatch(/^must be an EC P-256 public key/);
  });
});
