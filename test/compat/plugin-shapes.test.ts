import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const URLS = { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' };

/**
 * What the Axepta shop plugins (Magento 2, WooCommerce, PrestaShop: AxeptaBNPParibas/AxeptaOnline-*-plugin 2.0.0,
 * through the Axepta PHP library) put into their requests, beyond the library's own shapes (axepta-php.test.ts),
 * found refused by a black-box review with the plugins' code (paygate-v2-wire.md §2: nothing a real client sends may
 * be refused). Alike on both databases.
 */
describe.each(DIALECTS)('compat: what the Axepta shop plugins send (%s)', (dialect) => {
  let t: TestKassa;
  let m: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    m = await t.createMerchant({ country: 'FR', currency: 'EUR' });
  });
  afterAll(async () => t?.close());

  const transId = () => `wc-${Math.random().toString(36).slice(2, 12)}`;
  const hosted = (extra: Record<string, unknown>) =>
    t.call('POST', '/api/v2/payments', {
      auth: m,
      json: {
        transId: transId(),
        amount: { value: '4200', currency: 'EUR' },
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        urls: URLS,
        ...extra,
      },
    });

  it('WooCommerce sends a virtual order’s missing shipping address as empty strings, country too: taken and echoed', async () => {
    // class-axepta-bnpp-payment-process.php: getIsoCountry3('') is '' for an order without a shipping address.
    const shipping = { address: { streetName: '', streetNumber: '', city: '', country: '', postalCode: '' } };
    const billingAddress = {
      streetName: 'Rue de la Paix',
      streetNumber: '',
      city: 'Paris',
      country: '',
      postalCode: '75002',
    };
    const res = await hosted({ shipping, billingAddress });
    expect(res.status).toBe(202);
    const read = await t.call('GET', `/api/v2/payments/getByPayId/${res.body.payId}`, { auth: m });
    expect(read.body.shipping).toEqual(shipping);
    expect(read.body.billingAddress).toEqual(billingAddress);
  });

  it('a country that is neither an ISO code nor empty is still refused, naming it', async () => {
    const res = await hosted({ shipping: { address: { country: 'France' } } });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['shipping.address.country']);
  });

  it('a shop that fetches a token for every call (the PHP library caches none) gets 200 in a minute from one address', async () => {
    // OAuth2Api.php: "TODO: support accessToken expiration?"; the Magento plugin asks for one per operation.
    const form = { grant_type: 'client_credentials', client_id: m.merchantId, client_secret: m.apiKey };
    const statuses = new Set<number>();
    for (let i = 0; i < 200; i++) statuses.add((await t.call('POST', '/authorization/oauth/token', { form })).status);
    expect([...statuses]).toEqual([200]);
  });

  // Magento 2: Helper/Data.php `$quote->getGrandTotal() * 100`, Model/Method/Axepta.php `$amount * 100` for captures
  // and refunds, Observer/OrderCancel.php for reversals; PHP's json_encode writes 19.99 * 100 as 1998.9999999999998.
  it('Magento’s computed amounts (19.99 * 100 = 1998.9999999999998) are the whole minor units they stand for', async () => {
    const created = await t.call('POST', '/api/v2/payments/sessions', {
      auth: m,
      json: { transId: transId(), amount: { value: 19.99 * 100, currency: 'EUR' }, urls: URLS },
    });
    expect(created.status).toBe(201);
    expect(created.body.amount).toEqual({ value: 1999, currency: 'EUR' });
    const payment = await t.call('POST', '/api/v2/payments', {
      auth: m,
      json: directPayment(testPan('40000000', '1000'), {
        amount: { value: 19.99 * 100, currency: 'EUR' },
        captureMethod: { type: 'MANUAL' },
      }),
    });
    expect(payment.status).toBe(201);
    expect(payment.body.amount.value).toBe(1999);
    const capture = await t.call('POST', `/api/v2/payments/${payment.body.payId}/captures`, {
      auth: m,
      json: { transId: payment.body.transId, amount: { value: 19.99 * 100, currency: 'EUR' }, finishAuth: 'Y' },
    });
    expect(capture.status).toBe(201);
    expect(capture.body).toMatchObject({ status: 'OK', amount: { value: 1999, currency: 'EUR' } });
    const refund = await t.call('POST', `/api/v2/payments/${payment.body.payId}/refunds`, {
      auth: m,
      json: { transId: payment.body.transId, amount: { value: 0.29 * 100, currency: 'EUR' } },
    });
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({ status: 'OK', amount: { value: 29, currency: 'EUR' } });
  });

  it('a real fraction of a minor unit is still refused, naming amount.value, and nothing is stored', async () => {
    const id = transId();
    const res = await t.call('POST', '/api/v2/payments', {
      auth: m,
      json: directPayment(testPan('40000000', '1000'), { transId: id, amount: { value: 1998.5, currency: 'EUR' } }),
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'amount.value', message: 'must be integer or string' }]);
    const rows = await t.database.db.kysely.selectFrom('payment').select('pay_id').where('trans_id', '=', id).execute();
    expect(rows).toEqual([]);
  });

  it('a session takes the empty country too', async () => {
    const res = await t.call('POST', '/api/v2/payments/sessions', {
      auth: m,
      json: {
        transId: transId(),
        amount: { value: 4200, currency: 'EUR' },
        urls: URLS,
        shipping: { address: { country: '' } },
      },
    });
    expect(res.status).toBe(201);
  });

  it('a DIRECT payment takes it', async () => {
    const res = await t.call('POST', '/api/v2/payments', {
      auth: m,
      json: directPayment(testPan('40000000', '1000'), {
        amount: { value: 4200, currency: 'EUR' },
        billingAddress: { country: '' },
      }),
    });
    expect(res.status).toBe(201);
  });
});
