import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

describe.each(DIALECTS)('Idempotency-Key on POST /api/v1/payments (%s)', (dialect) => {
  let t: TestKassa;
  let m: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    m = await t.createMerchant();
  });
  afterAll(async () => t?.close());

  const pay = (body: unknown, key: string, auth = m) =>
    t.call('POST', '/api/v1/payments', { auth, json: body, headers: { 'idempotency-key': key } });
  /** The payments stored under a transId. */
  const storedPayments = (transId: unknown) =>
    t.database.db.kysely.selectFrom('payment').select('pay_id').where('trans_id', '=', String(transId)).execute();

  it('the same key and body replays the stored answer with idempotent-replayed: true', async () => {
    const body = directPayment(testPan('40000000', '1000'));
    const first = await pay(body, 'key-replay');
    const second = await pay(body, 'key-replay');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('the same key with another body is refused with 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const body = directPayment(testPan('40000000', '1000'));
    await pay(body, 'key-mismatch');
    const other = await pay({ ...body, amount: { value: 1, currency: 'DKK' } }, 'key-mismatch');
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('keys are scoped per merchant: another merchant may use the same key', async () => {
    const other = await t.createMerchant();
    const body = directPayment(testPan('40000000', '1000'));
    const mine = await pay(body, 'shared-key');
    const theirs = await pay(body, 'shared-key', other);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.payId).not.toBe(mine.body.payId);
  });

  it('a request refused for bad input keeps nothing: the corrected request may use the same key', async () => {
    const bad = await pay(
      { ...directPayment(testPan('40000000', '1000')), amount: { value: 0, currency: 'DKK' } },
      'key-fix',
    );
    expect(bad.status).toBe(400);
    const good = await pay(directPayment(testPan('40000000', '1000')), 'key-fix');
    expect(good.status).toBe(201);
  });

  // Money: a retry through another spelling of the URL must not authorize the card again (a black-box review found
  // four payIds for one key).
  it('a retry through another spelling of the same route replays: /api/v2, a trailing slash, a query string', async () => {
    const body = directPayment(testPan('40000000', '1000'));
    const headers = { 'idempotency-key': 'key-spellings' };
    const first = await t.call('POST', '/api/v1/payments', { auth: m, json: body, headers });
    expect(first.status).toBe(201);
    for (const path of ['/api/v2/payments', '/api/v1/payments/', '/api/v2/payments?retry=1']) {
      const again = await t.call('POST', path, { auth: m, json: body, headers });
      expect(again.status, path).toBe(201);
      expect(again.headers.get('idempotent-replayed'), path).toBe('true');
      expect(again.body.payId, path).toBe(first.body.payId);
    }
    const stored = await storedPayments(body.transId);
    expect(stored).toHaveLength(1);
  });

  // Money: a refund retried through another spelling is booked once; the same key on another payment is its own.
  it("a follow-up's key is scoped to its payment, whichever prefix or percent-encoding names it", async () => {
    const a = await pay(directPayment(testPan('40000000', '1000')), 'key-follow-up-a');
    const b = await pay(directPayment(testPan('40000000', '1000')), 'key-follow-up-b');
    const refund = { transId: 'refund-1', amount: { value: 100, currency: 'DKK' } };
    const headers = { 'idempotency-key': 'key-refund' };
    const first = await t.call('POST', `/api/v1/payments/${a.body.payId}/refunds`, { auth: m, json: refund, headers });
    expect(first.status).toBe(201);
    const encoded = [...String(a.body.payId)].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    const again = await t.call('POST', `/api/v2/payments/${encoded}/refunds/`, { auth: m, json: refund, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await t.call('POST', `/api/v2/payments/${b.body.payId}/refunds`, { auth: m, json: refund, headers });
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(other.body.xId).not.toBe(first.body.xId);
  });

  // Money: a merchant retrying in a hurry must never charge the cardholder twice.
  it('20 identical requests fired at once create exactly one payment', async () => {
    const body = directPayment(testPan('40000000', '1000'));
    const answers = await Promise.all(Array.from({ length: 20 }, () => pay(body, 'key-race')));
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const payIds = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.payId));
    expect(payIds.size).toBe(1);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.body.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    const rows = await storedPayments(body.transId);
    expect(rows).toHaveLength(1);
  });

  it('20 concurrent requests with one transId and no key still create exactly one payment', async () => {
    const body = directPayment(testPan('40000000', '1000'));
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.call('POST', '/api/v1/payments', { auth: m, json: body })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.code === 'TRANS_ID_IN_USE')).toBe(true);
  });
});
