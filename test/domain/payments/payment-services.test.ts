/**
 * Service-level tests of the payment rooms (Medusa style): PaymentService and HostedPaymentService over the real
 * KyselyStore on every dialect, with the simulated DS/ACS and acquirer and a settable clock — no HTTP in between.
 * The HTTPS tests (test/flows, test/hosted) are the thinner layer on top.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Merchant } from '../../../src/domain/merchants/merchant.js';
import type { CreatePaymentCommand } from '../../../src/domain/payments/payment-request.js';
import { MemorySettlementLedger } from '../../../src/integrations/acquirer-simulator/settlement-ledger.js';
import { SimulatorAcquirer } from '../../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../../src/integrations/bins/csv-bin-table.js';
import type { Services } from '../../../src/services.js';
import type { KyselyStore } from '../../../src/storage/kysely-store.js';
import { testPan } from '../../helpers/cards.js';
import { DIALECTS, type FreshDatabase } from '../../helpers/dialects.js';
import { type ServiceHarness, startServiceHarness } from '../../helpers/service-harness.js';
import { browserInfo as BROWSER, fixedClock } from '../threeds/three-ds-fixtures.js';
import { hostedPaymentCommand } from './payment-fixture.js';

const PUBLIC_URL = 'https://kassa.test';

describe.each(DIALECTS)('payment services over KyselyStore (%s)', (dialect) => {
  let h: ServiceHarness;
  let database: FreshDatabase;
  let services: Services;
  let store: KyselyStore;
  let merchant: Merchant;
  const clock = fixedClock(new Date().toISOString());
  const returned: string[] = [];
  const ledger = new MemorySettlementLedger();

  beforeAll(async () => {
    h = await startServiceHarness(dialect, {
      merchantId: `svc_${dialect}`,
      overrides: (config) => ({
        clock,
        threeDSSimulator: { decoupledDelayMs: 200, resultsRetryDelayMs: 200 },
        acquirer: new SimulatorAcquirer(CsvBinTable.fromFile(config.binFile), ledger, () => clock.now()),
      }),
      hooks: { onPaymentFinal: (p) => returned.push(p.payId) },
    });
    ({ database, services, store, merchant } = h);
  });
  afterAll(async () => h?.close());

  const direct = (pan: string, extra: Partial<CreatePaymentCommand> = {}): CreatePaymentCommand => ({
    merchantId: merchant.merchantId,
    transId: `t-${Math.random().toString(36).slice(2, 12)}`,
    amount: { value: 12_500, currency: 'DKK' },
    captureMethod: 'MANUAL',
    integrationType: 'DIRECT',
    channel: 'ECOM',
    card: { number: pan, expiryDate: '203012', securityCode: '123', cardholderName: 'Test Cardholder' },
    challengePreference: 'NO_PREFERENCE',
    browserInfo: BROWSER,
    ...extra,
  });

  const outboxTypes = async (payId: string) =>
    (await database.db.kysely.selectFrom('notification').select('type').where('pay_id', '=', payId).execute()).map(
      (r) => r.type,
    );

  it('DIRECT frictionless Y is AUTHORIZED with the ARes on the payment and one payment.authorized queued', async () => {
    const p = await services.payments.createDirectPayment(merchant, direct(testPan('40000000', '1000')));
    expect(p).toMatchObject({ status: 'AUTHORIZED', responseCode: '00000000', threeDS: { transStatus: 'Y' } });
    expect(p.operations.map((o) => [o.type, o.status])).toEqual([['AUTHORIZATION', 'OK']]);
    const stored = await services.payments.getByPayId(merchant.merchantId, p.payId);
    expect(stored.status).toBe('AUTHORIZED');
    expect(await outboxTypes(p.payId)).toEqual(expect.arrayContaining(['authentication', 'payment.authorized']));
    expect(returned).toContain(p.payId);
  });

  it('AUTOMATIC capture ends OK with an authorization and a capture operation', async () => {
    const p = await services.payments.createDirectPayment(
      merchant,
      direct(testPan('51000000', '1000'), { captureMethod: 'AUTOMATIC' }),
    );
    expect(p).toMatchObject({ status: 'OK', capturedValue: 12_500 });
    expect(p.operations.map((o) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE']);
  });

  it.each([
    ['1002', '20010001'],
    ['1004', '20010002'],
    ['1100', '20020051'],
  ])('scenario %s ends FAILED %s with payment.failed and no vaulted card', async (scenario, code) => {
    const p = await services.payments.createDirectPayment(merchant, direct(testPan('40000000', scenario)));
    expect(p).toMatchObject({ status: 'FAILED', responseCode: code });
    expect(await outboxTypes(p.payId)).toContain('payment.failed');
    expect(
      await database.db.kysely.selectFrom('pending_card').selectAll().where('pay_id', '=', p.payId).execute(),
    ).toEqual([]);
  });

  it('channel MOTO authorizes without 3-D Secure: no AReq, no Authentication Notification, even for a challenge card', async () => {
    const p = await services.payments.createDirectPayment(
      merchant,
      direct(testPan('40000000', '1005'), { channel: 'MOTO', browserInfo: undefined }),
    );
    expect(p).toMatchObject({ status: 'AUTHORIZED', responseCode: '00000000', channel: 'MOTO' });
    expect(p.threeDS).toBeUndefined();
    expect(await store.threeDSTransactions.find(p.payId)).toBeUndefined();
    expect(await outboxTypes(p.payId)).toEqual(['payment.authorized']);
  });

  /** Runs `act` while recording the threeDSRequestorChallengeInd of every AReq the simulated DS receives. */
  async function withChallengeIndicators<T>(act: () => Promise<T>): Promise<{ sent: string[]; p: T }> {
    const sent: string[] = [];
    const ds = services.threeDSSimulator;
    if (!ds) throw new Error('no simulator');
    const original = ds.authenticate.bind(ds);
    ds.authenticate = async (areq) => {
      sent.push(areq.threeDSRequestorChallengeInd);
      return original(areq);
    };
    try {
      return { sent, p: await act() };
    } finally {
      ds.authenticate = original;
    }
  }

  it('statementDescriptor reaches the acquirer simulator and is in its settlement record', async () => {
    const p = await services.payments.createDirectPayment(
      merchant,
      direct(testPan('40000000', '1000'), { informational: { statementDescriptor: 'KASSA*ORDER 1042' } }),
    );
    const records = (await ledger.records()).filter((r) => r.payId === p.payId);
    expect(records).toMatchObject([{ type: 'AUTHORIZATION', statementDescriptor: 'KASSA*ORDER 1042' }]);
  });

  it.each(['THIS_TRANSACTION', 'OUT_OF_SCOPE'] as const)(
    'threeDsPolicy.skip %s authorizes without an AReq, even for a challenge card',
    async (skip) => {
      const p = await services.payments.createDirectPayment(
        merchant,
        direct(testPan('40000000', '1005'), { threeDsPolicy: { skip } }),
      );
      expect(p).toMatchObject({ status: 'AUTHORIZED' });
      expect(p.threeDS).toBeUndefined();
      expect(await outboxTypes(p.payId)).toEqual(['payment.authorized']);
    },
  );

  it.each([
    ['TRANSACTION_RISK_ANALYSIS', '05'],
    ['TRUSTED_BENEFICIARY', '08'],
    ['LOW_VALUE', '02'],
  ] as const)(
    'exemption %s asks for no challenge in the AReq (threeDSRequestorChallengeInd %s) and is flagged to the acquirer',
    async (reason, indicator) => {
      const { sent, p } = await withChallengeIndicators(() =>
        services.payments.createDirectPayment(
          merchant,
          direct(testPan('40000000', '1000'), { threeDsPolicy: { exemption: { reason } } }),
        ),
      );
      expect(p.status).toBe('AUTHORIZED');
      expect(sent).toEqual([indicator]);
      const records = (await ledger.records()).filter((r) => r.payId === p.payId);
      expect(records).toMatchObject([{ type: 'AUTHORIZATION', exemption: reason }]);
    },
  );

  it('skip DATA_ONLY sends the AReq with threeDSRequestorChallengeInd 06 (data share only)', async () => {
    const { sent } = await withChallengeIndicators(() =>
      services.payments.createDirectPayment(
        merchant,
        direct(testPan('40000000', '1000'), { threeDsPolicy: { skip: 'DATA_ONLY' } }),
      ),
    );
    expect(sent).toEqual(['06']);
  });

  it('a getByPayId of another merchant is PAYMENT_NOT_FOUND like a missing one', async () => {
    const p = await services.payments.createDirectPayment(merchant, direct(testPan('40000000', '1000')));
    await expect(services.payments.getByPayId('someone-else', p.payId)).rejects.toMatchObject({
      code: 'PAYMENT_NOT_FOUND',
    });
    await expect(services.payments.getByPayId(merchant.merchantId, 'nope')).rejects.toMatchObject({
      code: 'PAYMENT_NOT_FOUND',
    });
  });

  it('browser challenge C: PENDING 60010001 with a challenge link; the RReq (Y) authorizes, a repeat acts once', async () => {
    const p = await services.payments.createDirectPayment(merchant, direct(testPan('40000000', '1005')));
    expect(p).toMatchObject({ status: 'PENDING', responseCode: '60010001' });
    expect(p.redirectHref).toMatch(new RegExp(`^${PUBLIC_URL}/3ds/challenge/${p.payId}\\?token=`));
    const token = new URL(p.redirectHref ?? '').searchParams.get('token');
    const step = await services.payments.challengeStep(p.payId, token);
    expect(step.kind).toBe('CHALLENGE');
    const t = await store.threeDSTransactions.find(p.payId);
    const done = await services.threeDSSimulator?.completeChallenge(t?.acsTransID ?? '', '02', { otp: '1234' });
    expect(done?.rreq.transStatus).toBe('Y');
    const after = await services.payments.getByPayId(merchant.merchantId, p.payId);
    expect(after).toMatchObject({ status: 'AUTHORIZED', threeDS: { transStatus: 'Y', liabilityShift: true } });
    // The DS retries an RReq until it gets an RRes: the second one is acknowledged without a second authorization.
    const again = await services.payments.handleResultsRequest(done?.rreq ?? ({} as never));
    expect(again).toMatchObject({ messageType: 'RRes', resultsStatus: '01' });
    const final = await services.payments.getByPayId(merchant.merchantId, p.payId);
    expect(final.operations).toHaveLength(1);
    const notification = await services.payments.challengeNotification(
      p.payId,
      done?.cres && Buffer.from(JSON.stringify(done.cres)).toString('base64url'),
    );
    expect(notification.kind).toBe('FINISHED');
  });

  it('a cancelled challenge ends FAILED 20010003 and returns to urls.cancel with the payId', async () => {
    const p = await services.payments.createDirectPayment(
      merchant,
      direct(testPan('40000000', '1005'), {
        urls: { return: 'https://shop.example/ok', cancel: 'https://shop.example/cancel' },
      }),
    );
    const t = await store.threeDSTransactions.find(p.payId);
    const done = await services.threeDSSimulator?.completeChallenge(t?.acsTransID ?? '', '02', { cancel: true });
    const step = await services.payments.challengeNotification(
      p.payId,
      Buffer.from(JSON.stringify(done?.cres)).toString('base64url'),
    );
    expect(step).toMatchObject({ kind: 'FINISHED', payment: { status: 'FAILED', responseCode: '20010003' } });
    expect(step.kind === 'FINISHED' && step.returnUrl).toBe(`https://shop.example/cancel?PayID=${p.payId}`);
  });

  it('decoupled D waits PENDING 60010002 until the RReq, then authorizes', async () => {
    const p = await services.payments.createDirectPayment(merchant, direct(testPan('40000000', '1007')));
    expect(p).toMatchObject({ status: 'PENDING', responseCode: '60010002' });
    await vi.waitFor(
      async () => {
        expect((await services.payments.getByPayId(merchant.merchantId, p.payId)).status).toBe('AUTHORIZED');
      },
      { timeout: 10_000, interval: 20 },
    );
  });

  it('REDIRECT: the 3DS Method page, the ACS callback, then continue sends the AReq with threeDSCompInd Y', async () => {
    const p = await services.payments.createDirectPayment(
      merchant,
      direct(testPan('40000000', '1000'), { browserAuthentication: 'REDIRECT' }),
    );
    expect(p).toMatchObject({ status: 'PENDING', responseCode: '60010003' });
    const token = new URL(p.redirectHref ?? '').searchParams.get('token');
    const method = await services.payments.threeDSMethodStep(p.payId, token);
    expect(method.kind).toBe('METHOD');
    if (method.kind !== 'METHOD') return;
    expect(await services.payments.recordThreeDSMethodCompletion(p.payId, method.threeDSMethodData)).toBe(true);
    expect(await services.payments.threeDSMethodStep(p.payId, 'wrong-token')).toEqual({ kind: 'INVALID_LINK' });
    const next = await services.payments.continueAfterThreeDSMethod(p.payId, token);
    expect(next).toMatchObject({ kind: 'FINISHED', payment: { status: 'AUTHORIZED' } });
    expect((await services.payments.getByPayId(merchant.merchantId, p.payId)).threeDS?.transStatus).toBe('Y');
  });

  it('an abandoned challenge ends FAILED 20010006 once its link expired (settable clock), card deleted', async () => {
    const p = await services.payments.createDirectPayment(merchant, direct(testPan('51000000', '1005')));
    expect(p.status).toBe('PENDING');
    expect(await services.payments.expireAbandonedAuthentications()).toBe(0);
    const start = clock.now();
    clock.set(new Date(start.getTime() + 31 * 60_000).toISOString());
    try {
      expect(await services.payments.expireAbandonedAuthentications()).toBeGreaterThanOrEqual(1);
    } finally {
      clock.set(start.toISOString());
    }
    const after = await services.payments.getByPayId(merchant.merchantId, p.payId);
    expect(after).toMatchObject({ status: 'FAILED', responseCode: '20010006' });
    expect(await outboxTypes(p.payId)).toContain('payment.failed');
  });

  /** A HOSTED payment of 40.00 DKK, MANUAL capture, waiting on its card step. */
  const createHosted = () => services.hosted.createHostedPayment(merchant, hostedPaymentCommand(merchant));

  it('HOSTED: card step → surcharge quote → consent → confirm (3DS Method page) → authorized', async () => {
    const created = await createHosted();
    expect(created).toMatchObject({ status: 'PENDING', responseCode: '60040001' });
    const { payment } = await services.hosted.paymentForPage(created.payId);
    const bad = await services.hosted.takeCard(merchant, payment, {
      number: '4000 0000 0000 0001',
      expiryDate: '203012',
      securityCode: '12',
    });
    expect(bad).toMatchObject({ ok: false });
    const taken = await services.hosted.takeCard(merchant, payment, {
      number: testPan('40000000', '1000'),
      expiryDate: '203012',
      securityCode: '123',
    });
    if (!taken.ok) throw new Error('card refused');
    expect(taken.payment.card?.brand).toBe('VISA');
    const consented = await services.hosted.recordConsent(taken.payment, {
      totalValue: taken.quote.totalValue,
      language: 'en',
    });
    const outcome = await services.hosted.confirm(merchant, consented, BROWSER);
    expect(outcome.kind).toBe('REDIRECT');
    if (outcome.kind !== 'REDIRECT') return;
    const token = new URL(outcome.url).searchParams.get('token');
    const next = await services.payments.continueAfterThreeDSMethod(created.payId, token);
    expect(next).toMatchObject({ kind: 'FINISHED', payment: { status: 'AUTHORIZED', integrationType: 'HOSTED' } });
    expect(await outboxTypes(created.payId)).not.toContain('authentication');
  });

  it('HOSTED: a payment left on the card step ends FAILED 20040003 after its link expired', async () => {
    const created = await createHosted();
    const start = clock.now();
    clock.set(new Date(start.getTime() + 32 * 60_000).toISOString());
    try {
      expect(await services.hosted.expireAbandonedHostedPayments()).toBeGreaterThanOrEqual(1);
    } finally {
      clock.set(start.toISOString());
    }
    expect(await services.payments.getByPayId(merchant.merchantId, created.payId)).toMatchObject({
      status: 'FAILED',
      responseCode: '20040003',
    });
  });

  it('a session starts one payment try at a time; a failed try is followed by a new payment under the same transId', async () => {
    const session = await services.hosted.createSession(merchant, {
      merchantId: merchant.merchantId,
      transId: `s-${Math.random().toString(36).slice(2)}`,
      amount: { value: 2_500, currency: 'DKK' },
      captureMethod: 'AUTOMATIC',
      urls: { return: 'https://shop.example/ok', cancel: 'https://shop.example/cancel' },
    });
    const first = await services.hosted.startSessionPayment(session.sessionId);
    expect(await services.hosted.startSessionPayment(session.sessionId)).toMatchObject({ payId: first.payId });
    await services.hosted.cancel(first);
    // A cancelled try is final for the cardholder's choice but the session stays open for another try.
    const second = await services.hosted.startSessionPayment(session.sessionId);
    expect(second.payId).not.toBe(first.payId);
    expect(second).toMatchObject({ transId: session.transId, sessionId: session.sessionId, status: 'PENDING' });
  });
});
