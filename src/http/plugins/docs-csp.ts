/**
 * The Content-Security-Policy of the API docs (`/docs`, swagger-ui), from @fastify/swagger-ui's own policy (its
 * scripts and the hashes of its inline snippets) made stricter: no framing at all (clickjacking), no `https:` style
 * and font sources, no third-party image host (the online validator badge is turned off), forms and connections to
 * Kassa only. Scripts stay limited to Kassa's own files and hashed snippets; styles allow inline ones
 * (`'unsafe-inline'`, without hashes, which would void it), because swagger-ui sets style attributes as it renders.
 */
export function strictDocsCsp(policy: string): string {
  const directives = policy
    .split(';')
    .map((d) => d.trim())
    .filter(Boolean)
    .map((d) => {
      const [name = '', ...values] = d.split(/\s+/);
      const kept = values.filter((v) => v !== 'https:' && v !== 'validator.swagger.io');
      if (name === 'frame-ancestors') return "frame-ancestors 'none'";
      if (name === 'style-src') return "style-src 'self' 'unsafe-inline'";
      return [name, ...kept].join(' ');
    });
  directives.push("connect-src 'self'", "form-action 'self'");
  return directives.join('; ');
}
