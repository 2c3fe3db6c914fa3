import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { AccessTokens } from '../../../src/http/auth/access-tokens.js';

const SECRET = 'test-token-secret-test-token-secret-0123456789';
const now = new Date('2026-11-23T01:00:00Z');

/** A token signed with Kassa's own secret and claims, but `exp` (and optionally `iat`) left out. */
async function tokenWithout(claims: ('exp' | 'iat')[]): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  let jwt = new SignJWT({ cid: 'k1' })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .setIssuer('kassa')
    .setAudience('kassa-api')
    .setSubject('m1');
  if (!claims.includes('iat')) jwt = jwt.setIssuedAt(iat);
  if (!claims.includes('exp')) jwt = jwt.setExpirationTime(iat + 60);
  return jwt.sign(new TextEncoder().encode(SECRET));
}

describe('access tokens (RFC 9068 §2.2: exp and iat required)', () => {
  const tokens = new AccessTokens(SECRET, 300, () => now);

  it('a correctly signed token without exp is refused', async () => {
    expect(await tokens.verify(await tokenWithout(['exp']))).toBeUndefined();
  });

  it('a correctly signed token without iat is refused', async () => {
    expect(await tokens.verify(await tokenWithout(['iat']))).toBeUndefined();
  });

  it('the same token with both claims is accepted (the forger above differs only in the missing claim)', async () => {
    expect(await tokens.verify(await tokenWithout([]))).toEqual({ merchantId: 'm1', keyId: 'k1' });
  });
});
