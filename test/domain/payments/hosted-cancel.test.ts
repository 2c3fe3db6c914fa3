/**
 * The cardholder's cancel on Kassa's hosted pages, at the service level over the real KyselyStore on every dialect:
 * the payment ends FAILED 20040002 once, with one payment.failed, and its transId is free again (DESIGN.md §4).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Merchant } from '../../../src/domain/merchants/merchant.js';
import type { CreatePaymentCommand } from '../../../src/domain/payments/payment-request.js';
import type { Services } from '../../../src/services.js';
import { DIALECTS, type FreshDatabase } from '../../helpers/dialects.js';
import { outboxEvents } from '../../helpers/outbox.js';
import { type ServiceHarness, startServiceHarness } from '../../helpers/service-harness.js';

const URLS = { return: 'https://shop.example/ok', cancel: 'https://shop.example/cancel' };

describe.each(DIALECTS)('hosted cancel (%s)', (dialect) => {
  let h: ServiceHarness;
  let database: FreshDatabase;
  let services: Services;
  let merchant: Merchant;
  const finals: string[] = [];

  beforeAll(async () => {
    h = await startServiceHarness(dialect, {
      merchantId: `cancel_${dialect}`,
      hooks: { onPaymentFinal: (p) => finals.push(p.payId) },
    });
    ({ database, services, merchant } = h);
  });
  afterAll(async () => h?.close());

  const hostedCommand = (transId: string): CreatePaymentCommand => ({
    merchantId: merchant.merchantId,
    transId,
    amount: { value: 4_000, currency: 'DKK' },
    captureMethod: 'AUTOMATIC',
    integrationType: 'HOSTED',
    channel: 'ECOM',
    challengePreference: 'NO_PREFERENCE',
    urls: URLS,
  });
  const newTransId = () => `c-${Math.random().toString(36).slice(2)}`;
  const failedEvents = async (payId: string) => outboxEvents(database.db.kysely, payId, 'payment.failed');

  // Money: the merchant books what the notifications say; a cancel clicked twice must not say it twice.
  it('a cancel clicked twice (both with the page as first read) ends the payment once, with one payment.failed', async () => {
    const created = await services.hosted.createHostedPayment(merchant, hostedCommand(newTransId()));
    const [first, second] = [await services.hosted.cancel(created), await services.hosted.cancel(created)];
    expect(first).toMatchObject({ status: 'FAILED', responseCode: '20040002' });
    expect(second).toMatchObject({ status: 'FAILED', responseCode: '20040002' });
    expect(await failedEvents(created.payId)).toHaveLength(1);
    expect(finals.filter((p) => p === created.payId)).toHaveLength(1);
  });

  const createSession = (transId: string) =>
    services.hosted.createSession(merchant, {
      merchantId: merchant.merchantId,
      transId,
      amount: { value: 2_500, currency: 'DKK' },
      captureMethod: 'AUTOMATIC',
      urls: URLS,
    });

  it('a cancel on the checkout page ends the try waiting on the card step FAILED 20040002; the transId is free again', async () => {
    const transId = newTransId();
    const session = await createSession(transId);
    const waiting = await services.hosted.startSessionPayment(session.sessionId);
    await expect(createSession(transId)).rejects.toMatchObject({ code: 'TRANS_ID_IN_USE' });
    const cancelled = await services.hosted.cancelSessionCheckout(session.sessionId);
    expect(cancelled).toMatchObject({ payId: waiting.payId, status: 'FAILED', responseCode: '20040002' });
    expect(await failedEvents(waiting.payId)).toHaveLength(1);
    expect(finals).toContain(waiting.payId);
    // Clicked twice: the cancelled try is the answer again; no new try is started to be cancelled.
    expect(await services.hosted.cancelSessionCheckout(session.sessionId)).toMatchObject({ payId: waiting.payId });
    expect(await failedEvents(waiting.payId)).toHaveLength(1);
    expect(await services.payments.getByTransId(merchant.merchantId, transId)).toMatchObject({ payId: waiting.payId });
    expect((await createSession(transId)).transId).toBe(transId);
  });

  it('a cancel on the checkout page before any try still gives the merchant a cancelled payment (PayID, payment.failed)', async () => {
    const transId = newTransId();
    const session = await createSession(transId);
    const cancelled = await services.hosted.cancelSessionCheckout(session.sessionId);
    expect(cancelled).toMatchObject({
      transId,
      sessionId: session.sessionId,
      status: 'FAILED',
      responseCode: '20040002',
    });
    expect(await failedEvents(cancelled.payId)).toHaveLength(1);
    expect(await services.payments.getByTransId(merchant.merchantId, transId)).toMatchObject({
      payId: cancelled.payId,
      status: 'FAILED',
    });
  });

  // Money and card testing: a double click arrives as two requests at once; the session's try is started, cancelled
  // and counted once (on PostgreSQL, a FAILED try frees the transId for a second one unless the session is locked).
  it('two checkout-page cancels at once, before any try, make one cancelled payment and count one try', async () => {
    const transId = newTransId();
    const session = await createSession(transId);
    const [a, b] = await Promise.all([
      services.hosted.cancelSessionCheckout(session.sessionId),
      services.hosted.cancelSessionCheckout(session.sessionId),
    ]);
    expect(b.payId).toBe(a.payId);
    const payments = await database.db.kysely
      .selectFrom('payment')
      .select(['pay_id', 'status'])
      .where('trans_id', '=', transId)
      .execute();
    expect(payments).toEqual([{ pay_id: a.payId, status: 'FAILED' }]);
    expect(await failedEvents(a.payId)).toHaveLength(1);
    const stored = await database.db.kysely
      .selectFrom('checkout_session')
      .select('card_tries')
      .where('session_id', '=', session.sessionId)
      .executeTakeFirstOrThrow();
    expect(Number(stored.card_tries)).toBe(1);
  });
});
