import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Helmet's security headers (HSTS, nosniff, frame and referrer policies, …) for `options`, as one object of lowercase
 * names: computed once by running Helmet's middleware against a recording response. Every middleware Helmet builds
 * sets a value fixed when it is built (the one that is not, a Content-Security-Policy with nonce functions, must be
 * off in `options`), so the headers are the same for every request. Set through the reply
 * (`reply.headers(...)`), they cost one object copy instead of Helmet's eleven chained `res.setHeader` calls, each
 * validating its name and value again (issue 12: 5 % of a lookup's event-loop time).
 *
 * @throws Error when `options` turn on the Content-Security-Policy, or when a middleware ends with an error.
 */
export function securityHeaders(options: HelmetOptions): Readonly<Record<string, string>> {
  if (options.contentSecurityPolicy !== false)
    throw new Error('securityHeaders: contentSecurityPolicy must be false (a policy may differ per request)');
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: number | string | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
      return this;
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error(String(failure));
  return Object.freeze(headers);
}
