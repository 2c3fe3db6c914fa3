import { directPayment, testPan } from '../helpers/cards.js';
import type { TestKassa } from '../helpers/test-kassa.js';

/** Merchant credentials as the test harness returns them. */
export type Credentials = { merchantId: string; apiKey: string };

/** Creates a DIRECT MANUAL-capture payment of `value` DKK minor units and returns its details (status AUTHORIZED). */
// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert their shape
export async function authorizedPayment(t: TestKassa, merchant: Credentials, value = 10_000): Promise<any> {
  const res = await t.call('POST', '/api/v1/payments', {
    auth: merchant,
    json: directPayment(testPan('40000010', '1000'), {
      amount: { value, currency: 'DKK' },
      captureMethod: { type: 'MANUAL' },
    }),
  });
  if (res.status !== 201 || res.body.status !== 'AUTHORIZED') throw new Error(`not authorized: ${res.text}`);
  return res.body;
}

/**
 * Sets an APPLIED surcharge of `value` minor units directly on a stored payment and its authorization. Hosted
 * surcharged payments arrive with another issue; follow-ups only read the stored values.
 */
export async function applySurcharge(t: TestKassa, payId: string, value: number): Promise<void> {
  const db = t.kassa.db.kysely;
  await db
    .updateTable('payment')
    .set({ surcharge_status: 'APPLIED', surcharge_reason: 'COMMERCIAL_CARD', surcharge_value: value })
    .where('pay_id', '=', payId)
    .execute();
  await db
    .updateTable('payment_operation')
    .set({ surcharge_value: value })
    .where('pay_id', '=', payId)
    .where('type', '=', 'AUTHORIZATION')
    .execute();
}

/**
 * A follow-up call: `kind` is captures, refunds or reversals. A 201 answers the operation's result with the updated
 * payment details in `payment` (paygate-v2-wire.md §3): `answer` is that whole answer, `body` its `payment`; any other
 * status keeps the problem in `body`.
 */
export async function followUp(
  t: TestKassa,
  merchant: Credentials,
  payId: string,
  kind: 'captures' | 'refunds' | 'reversals',
  json: unknown,
  headers?: Record<string, string>,
) {
  const res = await t.call('POST', `/api/v1/payments/${payId}/${kind}`, { auth: merchant, json, headers });
  return res.status === 201 ? { ...res, answer: res.body, body: res.body.payment } : { ...res, answer: res.body };
}
