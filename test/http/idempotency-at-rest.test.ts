import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

/** The body with its object members in reverse order at every depth: the same request, spelled differently. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversed(v)]),
  );
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
  );
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(DIALECTS)('Idempotency-Key at rest (%s): PCI DSS 3.3.1.2 and 3.5.1', (dialect) => {
  let t: TestKassa;
  let m: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    m = await t.createMerchant();
  });
  afterAll(async () => t?.close());

  const pay = (body: unknown, key: string) =>
    t.call('POST', '/api/v1/payments', { auth: m, json: body, headers: { 'idempotency-key': key } });

  it('the same body with its members in another order is the same request: replayed, not 422', async () => {
    const body = directPayment(testPan('40000000', '1000'));
    const first = await pay(body, 'key-order');
    const second = await pay(reversed(body), 'key-order');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.payId).toBe(first.body.payId);
  });

  it('another card number under the same key is another request (422)', async () => {
    const body = directPayment(testPan('40000000', '1000'));
    await pay(body, 'key-pan');
    const card = (body.paymentMethods as { card: Record<string, unknown> }).card;
    const other = {
      ...body,
      paymentMethods: {
        ...(body.paymentMethods as object),
        card: { ...card, number: testPan('40000000', '1000', '001') },
      },
    };
    const answer = await pay(other, 'key-pan');
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('given the database and the stored card summary, a guessed PAN and CVC cannot be confirmed', async () => {
    const pan = testPan('40000000', '1000', '427');
    const body = directPayment(pan);
    const created = await pay(body, 'key-at-rest');
    expect(created.status).toBe(201);
    const db = t.database.db.kysely;
    const rows = await db.selectFrom('idempotency_key').selectAll().where('merchant_id', '=', m.merchantId).execute();
    const summary = await db
      .selectFrom('payment')
      .selectAll()
      .where('pay_id', '=', created.body.payId)
      .executeTakeFirstOrThrow();
    const dump = JSON.stringify({ rows, summary });
    // Nothing of the card in clear, neither in the key rows nor in the stored answers.
    expect(dump).not.toContain(pan);
    expect(dump).not.toContain('"securityCode"');
    // The stored answers are sealed: not even the card summary or the payId the answer carries stands in them.
    // (As JSON members and values: four digits alone occur by chance in hex digests and ciphertext, about 1 run in 150.)
    const keyRows = JSON.stringify(rows);
    expect(keyRows).not.toContain(created.body.payId);
    for (const member of ['last4Digits', 'first6Digits', 'accountBin', 'payId']) expect(keyRows).not.toContain(member);
    expect(keyRows).not.toContain(`"${pan.slice(-4)}"`);
    expect(keyRows).not.toContain(`"${pan.slice(0, 6)}"`);
    // The attacker knows the body's shape, BIN, last four and expiry: the true PAN and CVC are among the guesses.
    // Unkeyed hashes of the body (as sent, or canonical) must match no stored fingerprint.
    const stored = new Set(rows.map((r) => r.request_hash));
    const guesses: string[] = [];
    for (const cvc of ['000', '122', '123', '124', '999']) {
      const card = { ...(body.paymentMethods as { card: object }).card, securityCode: cvc };
      const guess = { ...body, paymentMethods: { ...(body.paymentMethods as object), card } };
      for (const form of [guess, sorted(guess)]) {
        guesses.push(sha256(`POST /api/v1/payments\n${JSON.stringify(form)}`));
        guesses.push(sha256(JSON.stringify(form)));
      }
    }
    expect(guesses.filter((g) => stored.has(g))).toEqual([]);
    // And even with the data key no stored value depends on the CVC: the same request with another CVC is a replay.
    const card = (body.paymentMethods as { card: Record<string, unknown> }).card;
    const otherCvc = {
      ...body,
      paymentMethods: { ...(body.paymentMethods as object), card: { ...card, securityCode: '999' } },
    };
    const again = await pay(otherCvc, 'key-at-rest');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a security code in prefillInfo takes no part in the fingerprint either (HOSTED prefill)', async () => {
    const hosted = (cvc: string) => ({
      transId: 'prefill-cvc',
      amount: { value: 1000, currency: 'DKK' },
      urls: { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' },
      paymentMethods: {
        type: 'CARD',
        integrationType: 'HOSTED',
        card: { prefillInfo: { number: testPan('40000000', '1000'), expiryDate: '203012', securityCode: cvc } },
      },
    });
    const first = await pay(hosted('123'), 'key-prefill');
    expect(first.status).toBe(202);
    const second = await pay(hosted('999'), 'key-prefill');
    expect(second.status).toBe(202);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a key is scoped to its URI: the same key on another route is a request of its own', async () => {
    const body = directPayment(testPan('40000000', '1000'));
    const created = await pay(body, 'key-uri');
    expect(created.status).toBe(201);
    const capture = await t.call('POST', `/api/v1/payments/${created.body.payId}/captures`, {
      auth: m,
      json: { transId: 'cap-key-uri', amount: { value: 100, currency: 'DKK' } },
      headers: { 'idempotency-key': 'key-uri' },
    });
    // The payment is already captured (automatic capture): the capture route answers for itself, not from the key.
    expect(capture.status).toBe(409);
    expect(capture.body.code).toBe('CAPTURE_EXCEEDS_AUTHORIZED');
    expect(capture.headers.get('idempotent-replayed')).toBeNull();
  });
});
