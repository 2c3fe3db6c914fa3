/**
 * Which network addresses Kassa may send a merchant's notifications to (DESIGN.md §4, §5: SSRF guard). Range checks
 * by ipaddr.js (the IANA special-purpose registries, RFC 6890), so that the domain's URL check and the dispatcher's
 * resolved-address check share one rule.
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Parses an IPv4 or IPv6 literal (brackets and an IPv6 zone id allowed); undefined when it is not one. */
function parse(ip: string): Address | undefined {
  const bare = ip.replace(/^\[(.*)\]$/, '$1');
  // Only the four-part dotted quad is an IPv4 literal here (ipaddr.js would also read `127.1` or `0x7f000001`; URL
  // parsers normalise those before they get here, resolvers never print them).
  if (!bare.includes(':') && !/^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)) return undefined;
  try {
    return ipaddr.parse(bare);
  } catch {
    return undefined;
  }
}

/** Builds an IPv4 address from 32 bits given as two 16-bit parts. */
function v4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address reaches or stands for: IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated
 * `::ffff:0:a.b.c.d` (RFC 6145), IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96` (RFC 6052), 6to4 `2002::/16`
 * (RFC 3056: the 6to4 router) and Teredo `2001::/32` (RFC 4380: the server, and the client's address inverted).
 */
function embeddedV4(ip: ipaddr.IPv6): ipaddr.IPv4[] {
  const [h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0, h6 = 0, h7 = 0] = ip.parts;
  switch (ip.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return [v4Of(h6, h7)];
    case '6to4':
      return [v4Of(h1, h2)];
    case 'teredo':
      return [v4Of(h2, h3), v4Of(h6 ^ 0xffff, h7 ^ 0xffff)];
  }
  const compatible = h0 === 0 && h1 === 0 && h2 === 0 && h3 === 0 && h4 === 0 && h5 === 0;
  if (compatible && ip.range() === 'unicast') return [v4Of(h6, h7)]; // ::a.b.c.d (not :: or ::1)
  return [];
}

const NAT64_LOCAL = ipaddr.parseCIDR('64:ff9b:1::/48'); // RFC 8215: local-use NAT64, the IPv4 position varies

/** Whether an address is public unicast: neither special-purpose itself nor embedding a non-public IPv4 address. */
function isPublic(address: Address): boolean {
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  const v6 = address as ipaddr.IPv6;
  if (v6.match(NAT64_LOCAL)) return false;
  const embedded = embeddedV4(v6);
  if (embedded.length > 0) return embedded.every((v4) => v4.range() === 'unicast');
  return v6.range() === 'unicast';
}

/** Whether `ip` is an IP address literal (IPv4 dotted quad or IPv6, brackets allowed). */
export function isIpLiteral(ip: string): boolean {
  return parse(ip) !== undefined;
}

/**
 * Whether `ip` (an IPv4 or IPv6 literal, brackets allowed) is anything but a public unicast address: loopback,
 * RFC 1918 private, link-local (169.254/16, the cloud metadata endpoints), carrier-grade NAT, unspecified, multicast,
 * broadcast, documentation and other reserved ranges, ::1, fc00::/7 (including fd00:ec2::254), fe80::/10, and the IPv6
 * forms embedding a non-public IPv4 address (`embeddedV4`). Unparseable input counts as non-public: the guard fails
 * closed.
 */
export function isNonPublicAddress(ip: string): boolean {
  const address = parse(ip);
  return address === undefined || !isPublic(address);
}

/**
 * Whether a sandbox merchant may reach `ip` (DESIGN.md §5): public addresses, and loopback and private ones for
 * development, but never link-local addresses (169.254/16, fe80::/10: cloud metadata services), the metadata
 * services' other addresses (fd00:ec2::254), unspecified, multicast or broadcast, nor those reached through an IPv6
 * form embedding one. Unparseable input is refused.
 */
export function isSandboxReachable(ip: string): boolean {
  const address = parse(ip);
  if (address === undefined) return false;
  if (isPublic(address)) return true;
  const targets =
    address.kind() === 'ipv6' && embeddedV4(address as ipaddr.IPv6).length > 0
      ? embeddedV4(address as ipaddr.IPv6)
      : [address];
  return targets.every((a) => {
    if (a.kind() === 'ipv6' && a.toNormalizedString() === 'fd00:ec2:0:0:0:0:0:254') return false;
    return SANDBOX_RANGES.has(a.range());
  });
}

/** Non-public ranges a sandbox merchant may reach for development: loopback, private and unique-local networks. */
const SANDBOX_RANGES = new Set(['unicast', 'loopback', 'private', 'carrierGradeNat', 'uniqueLocal']);

/**
 * Whether a URL host name (as `new URL(…).hostname` gives it, so IPv4 shorthands are already normalised) names a
 * non-public destination by itself: `localhost`, `*.localhost` (RFC 6761), or a non-public IP literal. Host names
 * that need DNS are decided at delivery time, on the resolved addresses.
 */
export function isNonPublicHostLiteral(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIpLiteral(host) && isNonPublicAddress(host);
}
