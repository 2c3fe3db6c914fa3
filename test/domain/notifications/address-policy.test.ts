import { describe, expect, it } from 'vitest';
import { checkMerchantUrl } from '../../../src/domain/merchants/merchant-url.js';
import { isNonPublicAddress, isNonPublicHostLiteral } from '../../../src/domain/notifications/address-policy.js';

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
  'not-an-ip',
];
const PUBLIC = [
  '93.184.216.34',
  '8.8.8.8',
  '172.15.255.255',
  '172.32.0.1',
  '192.169.0.1',
  '2606:4700::1111',
  '2001:db8::1',
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
    expect(checkMerchantUrl(url, false)).toMatch(/sandbox merchants only/);
  });

  it.each(['https://127.0.0.1/hook', 'http://10.0.0.1/hook', 'http://[::1]:8080/hook'])(
    'a sandbox merchant may use %s',
    (url) => {
      expect(checkMerchantUrl(url, true)).toBeUndefined();
    },
  );

  it('a production merchant may use a public https host name', () => {
    expect(checkMerchantUrl('https://shop.example.com/kassa/hook', false)).toBeUndefined();
    expect(checkMerchantUrl('http://shop.example.com/kassa/hook', false)).toMatch(/https/);
  });
});
