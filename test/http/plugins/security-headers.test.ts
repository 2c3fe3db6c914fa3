import { describe, expect, it } from 'vitest';
import { helmetHeaders } from '../../../src/http/plugins/security-headers.js';

describe('helmetHeaders', () => {
  it("reads Helmet's headers for the options, by lower-case name", () => {
    const headers = helmetHeaders({ contentSecurityPolicy: false, referrerPolicy: { policy: 'same-origin' } });
    expect(headers).toMatchObject({
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'referrer-policy': 'same-origin',
      'cross-origin-opener-policy': 'same-origin',
    });
    expect(headers).not.toHaveProperty('content-security-policy');
    expect(Object.isFrozen(headers)).toBe(true);
  });

  it('keeps a policy Helmet sets as a list as one header value', () => {
    const headers = helmetHeaders({
      contentSecurityPolicy: false,
      referrerPolicy: { policy: ['no-referrer', 'strict-origin-when-cross-origin'] },
    });
    expect(headers['referrer-policy']).toBe('no-referrer,strict-origin-when-cross-origin');
  });

  it('refuses options whose headers depend on the request (a CSP directive computed per request)', () => {
    expect(() =>
      helmetHeaders({
        contentSecurityPolicy: { directives: { scriptSrc: [(request) => `'nonce-${request.headers.host}'`] } },
      }),
    ).toThrow(/read the request/);
  });
});
