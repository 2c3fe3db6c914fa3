import { isIpLiteral, isNonPublicHostLiteral, isSandboxReachable } from '../notifications/address-policy.js';

/**
 * Checks a merchant URL (return, cancel, webhook): https, or http and loopback hosts for sandbox merchants only
 * (DESIGN.md §4). Link-local, unspecified, multicast and broadcast literals (169.254.169.254 and the other cloud
 * metadata addresses among them) are refused for every merchant: delivery never reaches them (address-policy.ts
 * isSandboxReachable), so they are refused here rather than accepted and retried for a day. The notification
 * dispatcher re-checks resolved addresses at delivery (SSRF guard).
 * @returns a message, or undefined when the URL is acceptable.
 */
export function checkMerchantUrl(url: string, sandbox: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an https URL';
  if (isIpLiteral(parsed.hostname) && !isSandboxReachable(parsed.hostname)) {
    return 'link-local, unspecified, multicast and broadcast addresses are never allowed';
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
