import type { LookupAddress } from 'node:dns';
import { describe, expect, it, vi } from 'vitest';
import {
  checkTargetUrl,
  guardedLookup,
  type ResolveAll,
  resolveCheckedAddresses,
  SsrfRefusedError,
} from '../../src/notifications/ssrf-guard.js';

/** A resolver stub: no test sends traffic anywhere but loopback, and none asks a real DNS server. */
function stubResolver(table: Record<string, string[]>): ResolveAll & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (host: string): Promise<LookupAddress[]> => {
    calls.push(host);
    return (table[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(fn, { calls });
}

const resolver = stubResolver({
  'loopback.example': ['127.0.0.1'],
  'v6-loopback.example': ['::1'],
  'private.example': ['10.1.2.3'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.216.34', '192.168.0.10'],
  'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
});

describe('SSRF guard at delivery (DESIGN.md §5)', () => {
  // Security: a production merchant's notification may not reach loopback or private addresses, whether named
  // by a literal or by a host name resolving to one.
  it.each([
    ['127.0.0.1'],
    ['[::1]'],
    ['10.0.0.1'],
    ['loopback.example'],
    ['v6-loopback.example'],
    ['private.example'],
    ['metadata.example'],
    ['mixed.example'],
    ['unresolvable.example'],
  ])('a production merchant may not deliver to %s', async (host) => {
    await expect(resolveCheckedAddresses(host, false, resolver)).rejects.toBeInstanceOf(SsrfRefusedError);
  });

  it('a production merchant may deliver to a host whose every address is public', async () => {
    const addresses = await resolveCheckedAddresses('public.example', false, resolver);
    expect(addresses.map((a) => a.address)).toEqual(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
  });

  it.each(['loopback.example', 'private.example', '127.0.0.1'])(
    'a sandbox merchant may deliver to %s',
    async (host) => {
      await expect(resolveCheckedAddresses(host, true, resolver)).resolves.not.toHaveLength(0);
    },
  );

  it.each([
    ['http://shop.example/hook', false, /sandbox/],
    ['https://127.0.0.1/hook', false, /loopback or private/],
    ['https://[::1]/hook', false, /loopback or private/],
    ['https://10.0.0.1/hook', false, /loopback or private/],
    ['https://localhost/hook', false, /loopback or private/],
    ['ftp://shop.example/hook', true, /not http/],
  ])('the URL %s is refused before any connection (sandbox %s)', (url, sandbox, message) => {
    expect(() => checkTargetUrl(new URL(url), sandbox)).toThrow(message);
  });

  it('the socket gets exactly the addresses that were checked (no second resolution: DNS rebinding cannot slip in)', async () => {
    let answer = ['93.184.216.34'];
    const rebinding = vi.fn(async () => answer.map((address) => ({ address, family: 4 })));
    const lookup = guardedLookup(false, rebinding);
    const call = (options: object) =>
      new Promise<unknown[]>((resolve) =>
        lookup('rebind.example', options as never, (...args: unknown[]) => resolve(args)),
      );

    expect(await call({ all: true })).toEqual([null, [{ address: '93.184.216.34', family: 4 }]]);
    expect(await call({})).toEqual([null, '93.184.216.34', 4]);
    answer = ['127.0.0.1']; // the attacker's DNS server now answers loopback
    const [error] = await call({ all: true });
    expect(error).toBeInstanceOf(SsrfRefusedError);
    expect(rebinding).toHaveBeenCalledTimes(3); // once per connection, and that answer is the one used
  });
});

describe('SSRF guard: IPv6 forms embedding IPv4, sandbox limits, internal ports (issue 9)', () => {
  // Security: every IPv6 spelling that reaches an IPv4 address is judged by that IPv4 address.
  it.each([
    '::ffff:0:7f00:1', // IPv4-translated (RFC 6145) 127.0.0.1
    '::ffff:0:a00:1', // IPv4-translated 10.0.0.1
    '::ffff:169.254.169.254',
    '2002:7f00:1::1', // 6to4 of 127.0.0.1
    '2002:a9fe:a9fe::1', // 6to4 of 169.254.169.254
    '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
    '64:ff9b:1::a00:1', // local-use NAT64 (RFC 8215)
    '2001:0:7f00:1:0:0:f5ff:fffe', // Teredo, server 127.0.0.1
    '2001:0:5db8:d822:8000:0:80ff:fffe', // Teredo, client 127.0.0.1
    '::7f00:1', // IPv4-compatible 127.0.0.1
  ])('a production merchant may not deliver to %s', async (ip) => {
    await expect(resolveCheckedAddresses(`[${ip}]`, false, resolver)).rejects.toBeInstanceOf(SsrfRefusedError);
  });

  it('an IPv6 form embedding a public IPv4 address is public', async () => {
    await expect(resolveCheckedAddresses('[2002:5db8:d822::1]', false, resolver)).resolves.toHaveLength(1);
  });

  // Security: sandbox merchants keep loopback for development, never the metadata services.
  it.each(['169.254.169.254', '[fe80::1]', '[fd00:ec2::254]', '[::ffff:169.254.169.254]', 'metadata.example'])(
    'a sandbox merchant may not deliver to %s',
    async (host) => {
      await expect(resolveCheckedAddresses(host, true, resolver)).rejects.toBeInstanceOf(SsrfRefusedError);
    },
  );

  it.each([
    ['http://169.254.169.254/latest/meta-data', true],
    ['http://[fe80::1]:8080/hook', true],
    ['http://127.0.0.1:5432/hook', true],
    ['https://shop.example:6379/hook', false],
    ['http://localhost:5432/', true],
  ])('the URL %s is refused before any connection (sandbox %s)', (url, sandbox) => {
    expect(() => checkTargetUrl(new URL(url), sandbox, [5432, 6379])).toThrow(SsrfRefusedError);
  });

  it('a sandbox merchant may still deliver to loopback on another port', () => {
    expect(() => checkTargetUrl(new URL('http://127.0.0.1:3000/hook'), true, [5432, 6379])).not.toThrow();
  });
});
