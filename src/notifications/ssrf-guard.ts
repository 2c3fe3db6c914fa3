import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import {
  isIpLiteral,
  isNonPublicAddress,
  isNonPublicHostLiteral,
  isSandboxReachable,
} from '../domain/notifications/address-policy.js';

/** Resolves a host name to every address it has (like `dns.lookup(host, { all: true })`). */
export type ResolveAll = (hostname: string) => Promise<LookupAddress[]>;

/** The operating system's resolver (getaddrinfo: /etc/hosts, then DNS), every address, in the resolver's order. */
export const systemResolveAll: ResolveAll = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * A delivery refused by the SSRF guard (DESIGN.md §5). Its message says why, with the address: it goes to the server
 * log only; the merchant's delivery log says `address not allowed` (webhook-sender.ts).
 */
export class SsrfRefusedError extends Error {
  readonly code = 'KASSA_SSRF_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'SsrfRefusedError';
  }
}

/** The port a URL connects to (its explicit port, else the scheme's default). */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
}

/**
 * What needs no DNS: the scheme (https; http only for sandbox merchants), the port (never one of `forbiddenPorts`:
 * the database's and Redis's, whoever the merchant is) and host names that are non-public by themselves
 * (`localhost`, non-public IP literals: production merchants; link-local literals: sandbox merchants too).
 * @param allowPrivate true for a sandbox merchant (loopback and private networks allowed for development).
 * @throws SsrfRefusedError
 */
export function checkTargetUrl(url: URL, allowPrivate: boolean, forbiddenPorts: readonly number[] = []): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new SsrfRefusedError(`${url.protocol} is not http(s)`);
  if (forbiddenPorts.includes(portOf(url))) {
    throw new SsrfRefusedError(`port ${portOf(url)} is the database's or Redis's port`);
  }
  if (allowPrivate) {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIpLiteral(host) && !isSandboxReachable(host)) {
      throw new SsrfRefusedError(`${url.hostname} is a link-local, metadata or reserved address`);
    }
    return;
  }
  if (url.protocol !== 'https:') throw new SsrfRefusedError('http targets are allowed for sandbox merchants only');
  if (isNonPublicHostLiteral(url.hostname)) {
    throw new SsrfRefusedError(`${url.hostname} is a loopback or private address (sandbox merchants only)`);
  }
}

/**
 * Resolves `hostname` and returns its addresses when delivery may connect to them: for a production merchant every
 * address must be public, so that a name with one private address among public ones (or a rebinding DNS server)
 * cannot steer a request inside. A sandbox merchant (`allowPrivate`) may reach loopback and private addresses, never
 * link-local or metadata ones (`isSandboxReachable`). IP literals are returned as they are, after the same check.
 * @throws SsrfRefusedError when an address is refused or the name has no address.
 */
export async function resolveCheckedAddresses(
  hostname: string,
  allowPrivate: boolean,
  resolveAll: ResolveAll,
): Promise<LookupAddress[]> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIpLiteral(host)
    ? [{ address: host, family: host.includes(':') ? 6 : 4 }]
    : await resolveAll(host);
  if (addresses.length === 0) throw new SsrfRefusedError(`${hostname} has no address`);
  const bad = addresses.find((a) => (allowPrivate ? !isSandboxReachable(a.address) : isNonPublicAddress(a.address)));
  if (bad) {
    throw new SsrfRefusedError(
      allowPrivate
        ? `${hostname} resolves to ${bad.address}, a link-local, metadata or reserved address`
        : `${hostname} resolves to ${bad.address}, a loopback or private address (sandbox merchants only)`,
    );
  }
  return addresses;
}

/**
 * A `net.connect` lookup that hands the socket only addresses `resolveCheckedAddresses` accepted: the address
 * checked is the address connected to, so a DNS answer that changes between check and connect (rebinding) cannot
 * slip through. Answers in both of Node's shapes (`all: true` for happy-eyeballs, or one address).
 */
export function guardedLookup(allowPrivate: boolean, resolveAll: ResolveAll): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void) => {
    resolveCheckedAddresses(hostname, allowPrivate, resolveAll).then(
      (addresses) => {
        const wanted = options?.family === 4 || options?.family === 6 ? options.family : undefined;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        const first = usable[0];
        if (!first) return callback(new SsrfRefusedError(`${hostname} has no IPv${wanted} address`));
        if (options?.all) return callback(null, usable);
        return callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error),
    );
  }) as LookupFunction;
}
