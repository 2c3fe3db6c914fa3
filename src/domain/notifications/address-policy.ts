/**
 * Which network addresses Kassa may send a merchant's notifications to (DESIGN.md §4, §5: SSRF guard).
 * Pure string parsing, so that the domain's URL check and the dispatcher's resolved-address check share one rule.
 */

/** An IPv4 range as a 32-bit base and a prefix length. */
type V4Range = readonly [base: number, prefix: number];

/** Non-public IPv4 ranges (RFC 6890 special-purpose registry, the ones an attacker could aim at). */
const NON_PUBLIC_V4: readonly V4Range[] = [
  [ipv4ToInt('0.0.0.0'), 8], // "this network", includes 0.0.0.0
  [ipv4ToInt('10.0.0.0'), 8], // RFC 1918
  [ipv4ToInt('100.64.0.0'), 10], // RFC 6598 carrier-grade NAT
  [ipv4ToInt('127.0.0.0'), 8], // loopback
  [ipv4ToInt('169.254.0.0'), 16], // link-local, cloud metadata endpoints
  [ipv4ToInt('172.16.0.0'), 12], // RFC 1918
  [ipv4ToInt('192.0.0.0'), 24], // IETF protocol assignments
  [ipv4ToInt('192.168.0.0'), 16], // RFC 1918
  [ipv4ToInt('198.18.0.0'), 15], // benchmarking
  [ipv4ToInt('224.0.0.0'), 4], // multicast
  [ipv4ToInt('240.0.0.0'), 4], // reserved, includes 255.255.255.255
];

function ipv4ToInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  return (((parts[0] ?? 0) << 24) | ((parts[1] ?? 0) << 16) | ((parts[2] ?? 0) << 8) | (parts[3] ?? 0)) >>> 0;
}

/** Dotted-quad IPv4 (four decimal octets 0–255), as URL parsers and resolvers print it. */
function parseIpv4(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const octets = m.slice(1).map(Number);
  if (octets.some((o) => o > 255)) return undefined;
  return ipv4ToInt(ip);
}

/** Parses an IPv6 literal (with `::`, an embedded IPv4 tail, or a zone id) into 8 hextets. */
function parseIpv6(input: string): number[] | undefined {
  let ip = input.replace(/%.*$/, '');
  if (!ip.includes(':')) return undefined;
  const tail: number[] = [];
  const v4 = /(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(ip);
  if (v4?.[1]) {
    const n = parseIpv4(v4[1]);
    if (n === undefined) return undefined;
    tail.push(n >>> 16, n & 0xffff);
    ip = `${ip.slice(0, -v4[1].length)}x`; // placeholder keeps "::" detection intact
  }
  const halves = ip.split('::');
  if (halves.length > 2) return undefined;
  const toHextets = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    for (const h of s.split(':')) {
      if (h === 'x') continue;
      if (!/^[0-9a-f]{1,4}$/i.test(h)) return undefined;
      out.push(Number.parseInt(h, 16));
    }
    return out;
  };
  const head = toHextets(halves[0] ?? '');
  const rest = halves.length === 2 ? toHextets(halves[1] ?? '') : [];
  if (!head || !rest) return undefined;
  if (halves.length === 2) {
    const missing = 8 - head.length - rest.length - tail.length;
    if (missing < 1) return undefined;
    return [...head, ...new Array<number>(missing).fill(0), ...rest, ...tail];
  }
  const all = [...head, ...tail];
  return all.length === 8 ? all : undefined;
}

function isNonPublicV4(n: number): boolean {
  return NON_PUBLIC_V4.some(([base, prefix]) => (prefix === 0 ? true : n >>> (32 - prefix) === base >>> (32 - prefix)));
}

function isNonPublicV6(h: number[]): boolean {
  const [h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0, h6 = 0, h7 = 0] = h;
  const upperZero = h0 === 0 && h1 === 0 && h2 === 0 && h3 === 0 && h4 === 0;
  if (upperZero && h5 === 0 && h6 === 0 && (h7 === 0 || h7 === 1)) return true; // :: and ::1
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses reach the embedded IPv4 address.
  if (upperZero && (h5 === 0xffff || h5 === 0)) return isNonPublicV4(((h6 << 16) | h7) >>> 0);
  // NAT64 (64:ff9b::/96) reaches the embedded IPv4 address through a translator.
  if (h0 === 0x64 && h1 === 0xff9b && h2 === 0 && h3 === 0 && h4 === 0 && h5 === 0) {
    return isNonPublicV4(((h6 << 16) | h7) >>> 0);
  }
  if ((h0 & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((h0 & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((h0 & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated, still routable inside sites)
  if ((h0 & 0xff00) === 0xff00) return true; // ff00::/8 multicast
  return false;
}

/** Whether `ip` is an IP address literal (IPv4 dotted quad or IPv6, brackets allowed). */
export function isIpLiteral(ip: string): boolean {
  const bare = ip.replace(/^\[(.*)\]$/, '$1');
  return parseIpv4(bare) !== undefined || parseIpv6(bare) !== undefined;
}

/**
 * Whether `ip` (an IPv4 or IPv6 literal, brackets allowed) is loopback, private, link-local, unspecified or otherwise
 * not a public unicast address: 127/8, 10/8, 172.16/12, 192.168/16, 169.254/16, 100.64/10, 0/8, multicast and
 * reserved ranges, ::, ::1, fc00::/7, fe80::/10, ff00::/8, and IPv4-mapped/NAT64 forms of the IPv4 ones.
 * Unparseable input counts as non-public: the guard fails closed.
 */
export function isNonPublicAddress(ip: string): boolean {
  const bare = ip.replace(/^\[(.*)\]$/, '$1');
  const v4 = parseIpv4(bare);
  if (v4 !== undefined) return isNonPublicV4(v4);
  const v6 = parseIpv6(bare);
  if (v6) return isNonPublicV6(v6);
  return true;
}

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
