/** Parses `Basic base64(id:secret)` (RFC 7617); undefined when the header is absent or malformed. */
export function parseBasicAuthorization(header: string | undefined): { id: string; secret: string } | undefined {
  const match = header?.match(/^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return undefined;
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}
