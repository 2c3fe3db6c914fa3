import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';

const ISSUER = 'kassa';
const AUDIENCE = 'kassa-api';

/** What an access token proves: the merchant and which of its API keys obtained the token. */
export interface AccessTokenClaims {
  merchantId: string;
  keyId: string;
}

/**
 * OAuth 2 access tokens (RFC 6749 §4.4) as JWTs (RFC 9068-style, HS256 over KASSA_TOKEN_SECRET): verified without a
 * database round trip; the request still loads the merchant and checks the key is not revoked.
 */
export class AccessTokens {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    /** Lifetime in seconds (spec §4.1 expires_in). */
    readonly ttlSeconds: number,
    private readonly now: () => Date,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(claims: AccessTokenClaims): Promise<string> {
    const iat = Math.floor(this.now().getTime() / 1000);
    return new SignJWT({ cid: claims.keyId })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(claims.merchantId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .setJti(crypto.randomUUID())
      .sign(this.key);
  }

  /** @returns the claims, or undefined for a token that is malformed, forged, expired, without `exp`, or not ours. */
  async verify(token: string): Promise<AccessTokenClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
        typ: 'at+jwt',
        currentDate: this.now(),
        // A token without an expiry would be valid for ever (RFC 9068 §2.2 makes exp and iat required).
        requiredClaims: ['exp', 'iat', 'sub'],
      });
      if (typeof payload.sub !== 'string' || typeof payload.cid !== 'string') return undefined;
      return { merchantId: payload.sub, keyId: payload.cid };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return undefined;
      throw error;
    }
  }
}
