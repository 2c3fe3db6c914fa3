import { isIpLiteral, isNonPublicHostLiteral, isSandboxReachable } from '../notifications/address-policy.js';

/**
 * Checks a merchant URL (return, cancel, webhook): https, or http and loopback hosts for sandbox merchants only
 * (DESIGN.md §4). A notification URL (`use` webhook) naming a link-local, unspecified, multicast, broadcast or
 * reserved literal (169.254.169.254 and the other cloud metadata addresses among them) is refused for every merchant:
 * delivery never reaches them (address-policy.ts isSandboxReachable), so it is refused here rather than accepted and
 * retried for a day. A browser URL (return, cancel) is only opened by the cardholder's browser: a sandbox merchant may
 * use any local address there (`http://0.0.0.0:3000`). The dispatcher re-checks resolved addresses at delivery.
 * @returns a message, or undefined when the URL is acceptable.
 */
export function checkMerchantUrl(url: string, sandbox: boolean, use: 'webhook' | 'browser'): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an https URL';
  if (use === 'webhook' && isIpLiteral(parsed.hostname) && !isSandboxReachable(parsed.hostname)) {
    return 'is not an address Kassa delivers to (link-local, unspecified, multicast, broadcast or reserved)';
  }
  if (sandbox) return undefined;
  if (parsed.protocol !== 'https:') return 'must be an https URL (http is allowed for sandbox merchants only)';
  // Loopback, private, link-local and unspecified literals (127/8, 10/8, 172.16/12, 192.168/16, 169.254/16, ::1,
  // fc00::/7, fe80::/10, 0.0.0.0, …); names are checked on their resolved addresses at delivery (SSRF guard).
  if (isNonPublicHostLiteral(parsed.hostname)) {
    return 'loopback and private addresses are allowed for sandbox merchants only';
  }
  return undefined;
}
