import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a hosted link points at. */
export type LinkKind = 'payment' | 'session';

/**
 * Signed, expiring, unguessable hosted links (DESIGN.md §4): `t = <exp>.<HMAC-SHA256(secret, kind:id:exp)>`, exp in
 * Unix seconds. Without the secret a link cannot be made for another payment or extended.
 */
export class HostedLinks {
  constructor(
    private readonly secret: string,
    private readonly publicUrl: string,
  ) {}

  private sign(data: string): string {
    return createHmac('sha256', this.secret).update(data).digest('base64url');
  }

  /** The `t` parameter for `kind`/`id`, valid until `expiresAt`. */
  token(kind: LinkKind, id: string, expiresAt: Date): string {
    const exp = Math.floor(expiresAt.getTime() / 1000);
    return `${exp}.${this.sign(`hosted:${kind}:${id}:${exp}`)}`;
  }

  /** The full URL of a hosted page. */
  url(kind: LinkKind, id: string, expiresAt: Date, suffix = ''): string {
    const path = kind === 'payment' ? `/hosted/payments/${id}` : `/hosted/sessions/${id}`;
    return `${this.publicUrl}${path}${suffix}?t=${encodeURIComponent(this.token(kind, id, expiresAt))}`;
  }

  /** Whether `t` is a valid, unexpired token for `kind`/`id` at `now`. Constant-time comparison. */
  verify(kind: LinkKind, id: string, t: string | undefined, now: Date): boolean {
    return this.check(kind, id, t, now) === 'VALID';
  }

  /**
   * VALID: signed for `kind`/`id` and unexpired at `now`; EXPIRED: signed by Kassa for it but past its expiry (the
   * page may say so: only Kassa can have made it); INVALID: anything else. Constant-time comparison.
   */
  check(kind: LinkKind, id: string, t: string | undefined, now: Date): 'VALID' | 'EXPIRED' | 'INVALID' {
    const [expText, sig] = (t ?? '').split('.');
    const exp = Number(expText);
    if (!sig || !Number.isInteger(exp)) return 'INVALID';
    const expected = Buffer.from(this.sign(`hosted:${kind}:${id}:${exp}`));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'INVALID';
    return exp * 1000 <= now.getTime() ? 'EXPIRED' : 'VALID';
  }

  /**
   * The CSRF token of every form of a hosted page: bound to the page's id and link token, so that a page of another
   * payment, or a forged form without the link, cannot post.
   */
  csrf(id: string, t: string): string {
    return this.sign(`csrf:${id}:${t}`);
  }

  verifyCsrf(id: string, t: string, csrf: string | undefined): boolean {
    const expected = Buffer.from(this.csrf(id, t));
    const given = Buffer.from(csrf ?? '');
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
