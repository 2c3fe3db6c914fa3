import { describe, expect, it } from 'vitest';
import { checkMerchantUrl } from '../../../src/domain/merchants/merchant-url.js';
import {
  isNonPublicAddress,
  isNonPublicHostLiteral,
  isSandboxReachable,
} from '../../../src/domain/notifications/address-policy.js';

// Security (SSRF, DESIGN.md §5): these addresses must never be reachable for a production merchant.
const NON_PUBLIC = [
  '127.0.0.1',
  '127.255.0.9',
  '0.0.0.0',
  '10.0.0.1',
  '10.255.255.255',
  '172.16.0.1',
  '172.31.255.254',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '224.0.0.1',
  '255.255.255.255',
  '::1',
  '[::1]',
  '::',
  '0:0:0:0:0:0:0:1',
  'fc00::1',
  'fd12:3456::1',
  'fe80::1',
  'fe80::1%eth0',
  'febf::1',
  'ff02::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.1.2.3',
  '64:ff9b::a00:1',
  '::ffff:0:7f00:1', // IPv4-translated (RFC 6145)
  '::ffff:0:a9fe:a9fe',
  '2002:c0a8:101::1', // 6to4 of 192.168.1.1
  '64:ff9b:1::808:808', // local-use NAT64 (RFC 8215): refused whatever it embeds
  '2001:0:7f00:1::1', // Teredo with a loopback server
  '2001:db8::1', // documentation (RFC 3849)
  'not-an-ip',
];
const PUBLIC = [
  '93.184.216.34',
  '8.8.8.8',
  '172.15.255.255',
  '172.32.0.1',
  '192.169.0.1',
  '2606:4700::1111',
  '2002:808:808::1', // 6to4 of 8.8.8.8
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
];

describe('address policy', () => {
  it.each(NON_PUBLIC)('%s is not a public address', (ip) => {
    expect(isNonPublicAddress(ip)).toBe(true);
  });

  it.each(PUBLIC)('%s is a public address', (ip) => {
    expect(isNonPublicAddress(ip)).toBe(false);
  });

  it.each([
    ['localhost', true],
    ['api.localhost', true],
    ['127.0.0.1', true],
    ['[::1]', true],
    ['example.com', false],
    ['93.184.216.34', false],
  ])('host %s is non-public by itself: %s', (host, expected) => {
    expect(isNonPublicHostLiteral(host)).toBe(expected);
  });
});

describe('sandbox address policy', () => {
  // Security: loopback and private networks stay reachable for development; metadata services never are.
  it.each(['127.0.0.1', '::1', '10.1.2.3', '192.168.0.10', 'fd12::1', '::ffff:127.0.0.1', '93.184.216.34'])(
    'a sandbox merchant may reach %s',
    (ip) => {
      expect(isSandboxReachable(ip)).toBe(true);
    },
  );

  it.each([
    '169.254.169.254',
    '169.254.0.1',
    'fe80::1',
    'fe80::a9fe:a9fe%eth0',
    'fd00:ec2::254',
    '::ffff:169.254.169.254',
    '2002:a9fe:a9fe::1',
    '0.0.0.0',
    '::',
    '224.0.0.1',
    '255.255.255.255',
    'not-an-ip',
  ])('a sandbox merchant may not reach %s', (ip) => {
    expect(isSandboxReachable(ip)).toBe(false);
  });
});

describe('checkMerchantUrl (payment creation)', () => {
  // Security: a production merchant's URLs may not point at loopback or private literals, in any spelling.
  it.each([
    'https://127.0.0.1/hook',
    'https://[::1]/hook',
    'https://10.0.0.1/hook',
    'https://172.16.5.4/hook',
    'https://192.168.0.10/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[fc00::1]/hook',
    'https://[fe80::1]/hook',
    'https://0.0.0.0/hook',
    'https://2130706433/hook', // 127.0.0.1 as a number: the URL parser normalises it
    'https://0x7f.1/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://localhost/hook',
  ])('a production merchant may not use %s', (url) => {
    expect(checkMerchantUrl(url, false, 'webhook')).toMatch(/sandbox merchants only|not an address Kassa delivers to/);
  });

  // Delivery never reaches these for any merchant (isSandboxReachable): refused when the URL is given, not accepted
  // and then retried for a day (the notifications review got 201 and "merchant updated" for them as a sandbox).
  it.each([
    'http://169.254.169.254/latest',
    'http://[fe80::1]/x',
    'http://0.0.0.0:18700/ok',
    'http://[::ffff:169.254.169.254]/x',
    'http://[fd00:ec2::254]/x',
    'http://224.0.0.1/x',
    'http://255.255.255.255/x',
  ])('no merchant, not even a sandbox, may have notifications sent to %s', (url) => {
    expect(checkMerchantUrl(url, true, 'webhook')).toMatch(/^is not an address Kassa delivers to/);
    expect(checkMerchantUrl(url, false, 'webhook')).toMatch(/not an address Kassa delivers to|https URL/);
    // A return or cancel URL is only opened by the cardholder's browser: local development may use any of these.
    expect(checkMerchantUrl(url, true, 'browser')).toBeUndefined();
  });

  it.each(['https://127.0.0.1/hook', 'http://10.0.0.1/hook', 'http://[::1]:8080/hook'])(
    'a sandbox merchant may use %s',
    (url) => {
      expect(checkMerchantUrl(url, true, 'webhook')).toBeUndefined();
    },
  );

  it('a production merchant may use a public https host name', () => {
    expect(checkMerchantUrl('https://shop.example.com/kassa/hook', false, 'webhook')).toBeUndefined();
    expect(checkMerchantUrl('http://shop.example.com/kassa/hook', false, 'webhook')).toMatch(/https/);
  });
});
