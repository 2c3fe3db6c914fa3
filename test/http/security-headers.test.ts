import { describe, expect, it } from 'vitest';
import { securityHeaders } from '../../src/http/security-headers.js';

describe('securityHeaders', () => {
  it('gives Helmet’s headers for the options, by lowercase name, without X-Powered-By', () => {
    const headers = securityHeaders({ contentSecurityPolicy: false });
    expect(headers).toMatchObject({
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
    });
    expect(headers).not.toHaveProperty('content-security-policy');
    expect(headers).not.toHaveProperty('x-powered-by');
    expect(Object.isFrozen(headers)).toBe(true);
  });

  it('follows the options it is given', () => {
    const headers = securityHeaders({ contentSecurityPolicy: false, frameguard: { action: 'deny' }, hsts: false });
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers).not.toHaveProperty('strict-transport-security');
  });

  it('refuses options with a Content-Security-Policy, whose value may differ per request', () => {
    expect(() => securityHeaders({})).toThrow(/contentSecurityPolicy/);
    expect(() => securityHeaders({ contentSecurityPolicy: { directives: { 'default-src': ["'self'"] } } })).toThrow(
      /contentSecurityPolicy/,
    );
  });

  it('throws the error of options Helmet refuses', () => {
    expect(() =>
      securityHeaders({ contentSecurityPolicy: false, referrerPolicy: { policy: 'no-such-policy' as 'origin' } }),
    ).toThrow(/Referrer-Policy/);
  });
});
