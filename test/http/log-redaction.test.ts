import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pseudoCardNumber } from '../../src/domain/cards/pseudo-card-number.js';
import { maskCardNumbers } from '../../src/domain/payments/card-number-mask.js';
import { redactQuery } from '../../src/http/plugins/log-redaction.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

// Card numbers of the black-box review (both pass the Luhn check).
const PAN = '4000000000010076';
const PAN_2 = '4000000000010068';

describe('maskCardNumbers: card numbers in logged URLs', () => {
  it.each([
    ['/api/v1/payments/getByTransId/4000000000010076', '/api/v1/payments/getByTransId/400000******0076'],
    ['/api/v1/payments/4000000000010076/captures', '/api/v1/payments/400000******0076/captures'],
    ['/api/v1/notifications?payId=4000000000010068', '/api/v1/notifications?payId=400000******0068'],
    ['/x/4000000000010076-4000000000010068', '/x/400000******0076-400000******0068'],
    ['/x/4000000000006', '/x/400000***0006'], // 13 digits, Luhn-valid
    ['/x/4000000000000000006', '/x/400000*********0006'], // 19 digits, Luhn-valid
    // Typed with separators, percent-encoded: logged decoded, masked.
    ['/api/v1/payments/getByTransId/4000%200000%200001%200076', '/api/v1/payments/getByTransId/4000 00** **** 0076'],
    ['/x/4000-0000-0001-0076', '/x/4000-00**-****-0076'],
    ['/x/4000 0000 0001 0076/y', '/x/4000 00** **** 0076/y'],
    ['/x/%34%30%30%30000000010076', '/x/400000******0076'],
    ['/x/%zz/4000000000010076', '/x/%zz/400000******0076'], // a malformed escape: scanned as sent
  ])('%s is logged as %s', (url, logged) => {
    expect(maskCardNumbers(url)).toBe(logged);
  });

  // Security: a card number typed or pasted with other separators, or encoded more than once, is masked all the same
  // (PCI DSS 3.4.1). Card numbers of the black-box review (all pass the Luhn check).
  it.each([
    ['/api/v1/payments/getByTransId/4000.0000.0001.0001', '/api/v1/payments/getByTransId/4000.00**.****.0001'],
    ['/x/4000+0000+0001+0019', '/x/4000+00**+****+0019'],
    ['/x/4000_0000_0001_0035', '/x/4000_00**_****_0035'],
    ['/api/v1/payments/getByTransId/4000/0000/0001/0001', '/api/v1/payments/getByTransId/4000/00**/****/0001'],
    ['/x/4000--0000--0001--1017', '/x/4000--00**--****--1017'],
    ['/x/4000--0000-0001-0076', '/x/4000--00**-****-0076'],
    ['/x/4000 - 0000 - 0001 - 0001', '/x/4000 - 00** - **** - 0001'],
    ['/x/4000\u00a00000\u00a00001\u00a00001', '/x/4000\u00a000**\u00a0****\u00a00001'], // no-break spaces
    ['/x/4000%C2%A00000%C2%A00001%C2%A00001', '/x/4000\u00a000**\u00a0****\u00a00001'],
    ['/x/4000%200000%200001%200001', '/x/4000 00** **** 0001'],
    ['/x/4000%2F0000%2f0001%2F0001', '/x/4000/00**/****/0001'],
    ['/x/4000%2E0000%2E0001%2E0001', '/x/4000.00**.****.0001'],
    // Encoded twice: %25 is the percent sign.
    ['/x/4000%25200000%25200001%25200001', '/x/4000 00** **** 0001'],
    ['/x/4000%25C2%25A00000%25C2%25A00001%25C2%25A00001', '/x/4000\u00a000**\u00a0****\u00a00001'],
    ['/x/4000%252B0000%252B0001%252B0001', '/x/4000+00**+****+0001'],
    // A malformed or non-UTF-8 escape elsewhere is kept as sent; the rest is decoded.
    ['/x/%zz/4000%200000%200001%200001', '/x/%zz/4000 00** **** 0001'],
    ['/x/%FF/4000%200000%200001%200001', '/x/%FF/4000 00** **** 0001'],
    // A number beside the card number, in groups of its own: the card number is masked.
    ['/x/12/4000/0000/0001/0001', '/x/12/4000/00**/****/0001'],
    ['/x/2026/4000000000010076', '/x/2026/400000******0076'],
  ])('%s is logged as %s', (url, logged) => {
    expect(maskCardNumbers(url)).toBe(logged);
  });

  it.each([
    ['a Luhn-failing 16-digit id', '/x/4000000000010077'],
    ['12 Luhn-valid digits', '/x/400000000002'],
    ['20 Luhn-valid digits (a card number with 4 zeros before it)', `/x/0000${PAN}`],
    ['a pseudo card number (fails the Luhn check by design)', `/x/${pseudoCardNumber(new Uint8Array(32), 'm', PAN)}`],
    ['a hex payId', '/api/v1/payments/0123456789abcdef0123456789abcdef'],
    ['a date and a time', '/x?from=2026-11-27%2010:00'],
    ['Luhn-failing groups', '/x/4000-0000-0001-0077'],
    ['Luhn-failing groups joined by other separators', '/x/4000.0000_0001/0077'],
    ['a 13-digit timestamp in milliseconds (fails the Luhn check)', '/api/v1/notifications/1732694400001'],
    ['a timestamp after a date in path segments', '/x/2026/11/27/1732694400001'],
    ['an ISO date and time', '/x?from=2026-11-27T10:00:00.000Z'],
    ['an encoded ISO date and time', '/x?from=2026-11-27%2010%3A00%3A00'],
    ['an IPv4 address', '/x/192.168.100.200'],
    ['a version and a payId', '/api/v1.2.3/payments/5d41402abc4b2a76b9719d911017c592'],
  ])('%s is kept as is', (_name, url) => {
    expect(maskCardNumbers(url)).toBe(url);
  });

  // Security: card numbers sharing a group are masked as one, so no more than the first 6 and last 4 digits of
  // either shows: 4000 0000 0001 0076 and 0000 0001 0076 4000 both pass the Luhn check.
  it('overlapping card numbers are masked as one', () => {
    expect(maskCardNumbers('/x/4000 0000 0001 0076 4000')).toBe('/x/4000 00** **** **** 4000');
  });

  it.each([
    ['digits and separators', `/x/${'1-2.3 4/5_6+7'.repeat(160)}`],
    ['double-encoded separators', `/x/${'4%2520'.repeat(340)}`],
    ['a separator run', `/x/1${'-'.repeat(2000)}2`],
    ['card numbers one after another', `/x/${'4000000000010076/'.repeat(120)}`],
    ['escaped percent signs', `/x/${'%25'.repeat(700)}1`],
  ])('a 2,000-character URL of %s is scanned in linear time', (_name, url) => {
    expect(url.length).toBeGreaterThanOrEqual(2000);
    const started = performance.now();
    const logged = maskCardNumbers(url);
    // About a millisecond; a backtracking pattern would take seconds. Generous for a loaded CI machine.
    expect(performance.now() - started).toBeLessThan(100);
    expect(logged).not.toMatch(/4000000000010076/);
  });

  it('a card number in a redacted query value is redacted, one in an allow-listed value masked', () => {
    expect(maskCardNumbers(redactQuery(`/x?transId=${PAN}&payId=${PAN_2}&lang=da`))).toBe(
      '/x?transId=[redacted]&payId=400000******0068&lang=da',
    );
  });
});

describe('logged URLs of a running server', () => {
  let t: TestKassa;
  let m: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa('sqlite');
    m = await t.createMerchant();
  });
  afterAll(async () => t?.close());

  // Security: a card number sent as a transId, a payId or a path segment never reaches the log in clear (PCI DSS 3.4.1).
  it('a card number in the path or an allow-listed query value, grouped or encoded twice, is logged masked: 6 + 4 digits kept', async () => {
    await t.call('GET', `/api/v1/payments/getByTransId/${PAN}`, { auth: m });
    await t.call('GET', `/api/v1/payments/getByPayId/${PAN}`, { auth: m });
    await t.call('POST', `/api/v1/payments/${PAN}/captures`, { auth: m, json: { amount: { value: 1 } } });
    await t.call('GET', `/api/v1/notifications?payId=${PAN_2}`, { auth: m });
    await t.call('GET', '/api/v1/payments/getByTransId/4000.0000.0001.0076', { auth: m });
    await t.call('GET', '/api/v1/payments/getByTransId/4000%25200000%25200001%25200068', { auth: m });
    await t.kassa.app.close(); // flushes the log
    const logs = t.logs();
    expect(logs).toContain('"url":"/api/v1/payments/getByTransId/400000******0076"');
    expect(logs).toContain('"url":"/api/v1/payments/getByPayId/400000******0076"');
    expect(logs).toContain('"url":"/api/v1/payments/400000******0076/captures"');
    expect(logs).toContain('"url":"/api/v1/notifications?payId=400000******0068"');
    expect(logs).toContain('"url":"/api/v1/payments/getByTransId/4000.00**.****.0076"');
    expect(logs).toContain('"url":"/api/v1/payments/getByTransId/4000 00** **** 0068"');
    expect(logs).not.toMatch(/4000\.0000\.0001\.0076|0001%2520/);
    expect(logs).not.toContain(PAN);
    expect(logs).not.toContain(PAN_2);
  });
});
