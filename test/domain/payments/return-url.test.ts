import { describe, expect, it } from 'vitest';
import { returnUrlOf, withPayId } from '../../../src/domain/payments/return-url.js';
import { paymentFixture } from './payment-fixture.js';

const PAY_ID = 'f'.repeat(32);

describe('the PayID added to the merchant return and cancel URLs (paygate-v2-wire.md §6)', () => {
  // Signed and exact-match return URLs break when any byte of the merchant's URL changes.
  it.each([
    ['no query', 'https://shop.example/return', `https://shop.example/return?PayID=${PAY_ID}`],
    ['no path', 'https://shop.example', `https://shop.example?PayID=${PAY_ID}`],
    ['an empty query', 'https://shop.example/return?', `https://shop.example/return?PayID=${PAY_ID}`],
    ['a query ending in &', 'https://shop.example/r?order=1&', `https://shop.example/r?order=1&PayID=${PAY_ID}`],
    [
      "WooCommerce's cancel URL with &amp; separators",
      'https://shop.example/?cancel_order=true&amp;order=wc_order_1&amp;redirect&amp;_wpnonce=abc',
      `https://shop.example/?cancel_order=true&amp;order=wc_order_1&amp;redirect&amp;_wpnonce=abc&PayID=${PAY_ID}`,
    ],
    [
      '%20, ~, + and percent-encoded bytes',
      'https://shop.example/r?sig=a%20b~c&q=x+y&e=%7e%2B&flag',
      `https://shop.example/r?sig=a%20b~c&q=x+y&e=%7e%2B&flag&PayID=${PAY_ID}`,
    ],
    [
      'a fragment',
      'https://shop.example/r?order=1#step?x=1&y',
      `https://shop.example/r?order=1&PayID=${PAY_ID}#step?x=1&y`,
    ],
    ['a fragment and no query', 'https://shop.example/r#top', `https://shop.example/r?PayID=${PAY_ID}#top`],
    [
      'an existing PayID, which is replaced',
      'https://shop.example/r?PayID=old&order=1&Pay%49D=old2',
      `https://shop.example/r?order=1&PayID=${PAY_ID}`,
    ],
    ['only an existing PayID', 'https://shop.example/r?PayID=old#x', `https://shop.example/r?PayID=${PAY_ID}#x`],
    [
      'names that only look like PayID, which stay',
      'https://shop.example/r?payid=1&PayIDs=2&PayID%20=3&x=PayID&%E0=4',
      `https://shop.example/r?payid=1&PayIDs=2&PayID%20=3&x=PayID&%E0=4&PayID=${PAY_ID}`,
    ],
  ])('a URL with %s keeps every other byte', (_case, url, expected) => {
    expect(withPayId(url, PAY_ID)).toBe(expected);
  });

  it('the result holds exactly one PayID, the payment’s', () => {
    const out = new URL(withPayId('https://shop.example/r?PayID=old&a=1&PayID=older', PAY_ID));
    expect(out.searchParams.getAll('PayID')).toEqual([PAY_ID]);
    expect(out.searchParams.get('a')).toBe('1');
  });

  it('returnUrlOf sends a cancelled payment to urls.cancel and another to urls.return, both unchanged but for PayID', () => {
    const urls = { return: 'https://shop.example/ok?sig=a%20b~c', cancel: 'https://shop.example/?cancel_order=true' };
    const ok = paymentFixture({ payId: PAY_ID, urls });
    const cancelled = paymentFixture({ payId: PAY_ID, urls, status: 'FAILED', responseCode: '20040002' });
    expect(returnUrlOf(ok)).toBe(`https://shop.example/ok?sig=a%20b~c&PayID=${PAY_ID}`);
    expect(returnUrlOf(cancelled)).toBe(`https://shop.example/?cancel_order=true&PayID=${PAY_ID}`);
    expect(returnUrlOf(paymentFixture({ payId: PAY_ID }))).toBeUndefined();
  });
});
