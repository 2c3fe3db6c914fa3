import helmet, { type HelmetOptions } from 'helmet';

/**
 * The headers Helmet's middleware sets for `options`, computed once: name (lower case) → value.
 *
 * Without a Content-Security-Policy (whose directives may be functions of the request, e.g. a nonce), every Helmet
 * middleware sets the same headers on every answer and never reads the request. So they are read off Helmet once, by
 * running its middleware against a response that records them and a request that throws on any use (proving that
 * independence for the options given), and each answer then gets them as plain reply headers. Running Helmet's
 * thirteen middlewares per request, each through `setHeader`'s validation, cost ~6 % of a getByPayId answer's CPU
 * (issue 12, session 13).
 *
 * Helmet also removes `X-Powered-By`; neither Node.js nor Fastify sets it, so there is nothing to remove.
 * @throws Error when Helmet reads the request, answers asynchronously or fails (options this cannot precompute).
 */
export function helmetHeaders(options: Readonly<HelmetOptions>): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const request = new Proxy(
    {},
    {
      get(_target, property) {
        throw new Error(`Helmet read the request (${String(property)}): its headers cannot be computed once`);
      },
    },
  );
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let finished = false;
  helmet(options)(request as never, response as never, (error?: unknown) => {
    if (error !== undefined) throw error;
    finished = true;
  });
  if (!finished) throw new Error('Helmet did not finish synchronously: its headers cannot be computed once');
  return Object.freeze(headers);
}
