import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pseudoCardNumber } from '../../src/domain/cards/pseudo-card-number.js';
import { maskCardNumbers, redactQuery } from '../../src/http/plugins/log-redaction.js';
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

  it.each([
    ['a Luhn-failing 16-digit id', '/x/4000000000010077'],
    ['12 Luhn-valid digits', '/x/400000000002'],
    ['20 Luhn-valid digits (a card number with 4 zeros before it)', `/x/0000${PAN}`],
    ['a pseudo card number (fails the Luhn check by design)', `/x/${pseudoCardNumber(new Uint8Array(32), 'm', PAN)}`],
    ['a hex payId', '/api/v1/payments/0123456789abcdef0123456789abcdef'],
    ['a date and a time', '/x?from=2026-11-27%2010:00'],
    ['Luhn-failing groups', '/x/4000-0000-0001-0077'],
    ['groups joined by two separators', '/x/4000--0000-0001-0076'],
  ])('%s is kept as is', (_name, url) => {
    expect(maskCardNumbers(url)).toBe(url);
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
  it('a card number in the path or an allow-listed query value is logged masked, first 6 and last 4 digits kept', async () => {
    await t.call('GET', `/api/v1/payments/getByTransId/${PAN}`, { auth: m });
    await t.call('GET', `/api/v1/payments/getByPayId/${PAN}`, { auth: m });
    await t.call('POST', `/api/v1/payments/${PAN}/captures`, { auth: m, json: { amount: { value: 1 } } });
    await t.call('GET', `/api/v1/notifications?payId=${PAN_2}`, { auth: m });
    await t.kassa.app.close(); // flushes the log
    const logs = t.logs();
    expect(logs).toContain('"url":"/api/v1/payments/getByTransId/400000******0076"');
    expect(logs).toContain('"url":"/api/v1/payments/getByPayId/400000******0076"');
    expect(logs).toContain('"url":"/api/v1/payments/400000******0076/captures"');
    expect(logs).toContain('"url":"/api/v1/notifications?payId=400000******0068"');
    expect(logs).not.toContain(PAN);
    expect(logs).not.toContain(PAN_2);
  });
});
