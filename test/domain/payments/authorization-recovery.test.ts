/**
 * Payments left with their authorization in flight (PENDING 60000001 or 60020001: the request died, lost its
 * database, or got no answer from the acquirer) are resolved by AuthorizationRecovery, which asks the acquirer's status
 * lookup. Service level: PaymentService and the recovery over the real KyselyStore on every dialect, the simulated
 * acquirer with faults injected around it, and a settable clock.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Merchant } from '../../../src/domain/merchants/merchant.js';
import type { AuthorizationRecovery } from '../../../src/domain/payments/authorization-recovery.js';
import type { CreatePaymentCommand } from '../../../src/domain/payments/payment-request.js';
import type { AcquirerAuthorizationRequest } from '../../../src/domain/ports/acquirer.js';
import type { CardVault } from '../../../src/domain/ports/card-vault.js';
import { MemorySettlementLedger } from '../../../src/integrations/acquirer-simulator/settlement-ledger.js';
import { SimulatorAcquirer } from '../../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../../src/integrations/bins/csv-bin-table.js';
import type { Services } from '../../../src/services.js';
import { KyselyCardKeyring } from '../../../src/storage/card-keyring.kysely.js';
import { KyselyCardVault } from '../../../src/storage/card-vault.kysely.js';
import type { KyselyStore } from '../../../src/storage/kysely-store.js';
import { acquirerAround } from '../../helpers/acquirer.js';
import { testPan } from '../../helpers/cards.js';
import { DIALECTS, type FreshDatabase } from '../../helpers/dialects.js';
import { SERVICE_TEST_DATA_KEY, type ServiceHarness, startServiceHarness } from '../../helpers/service-harness.js';
import { directCommand, fixedClock } from '../threeds/three-ds-fixtures.js';

/**
 * What the fault-injecting acquirer does with the next authorization: LOST_ANSWER lets the simulator act, then throws
 * (a timeout after the acquirer acted); UNREACHABLE throws before it sees the message; HANG lets it act and never
 * answers (the node died during the call, leaving the payment at its intent).
 */
type Fault = 'NONE' | 'LOST_ANSWER' | 'UNREACHABLE' | 'HANG';

describe.each(DIALECTS)('payments left with their authorization in flight are resolved (%s)', (dialect) => {
  let database: FreshDatabase;
  let services: Services;
  let store: KyselyStore;
  let merchant: Merchant;
  let recovery: AuthorizationRecovery;
  const clock = fixedClock('2026-11-27T10:00:00.000Z');
  const ledger = new MemorySettlementLedger();
  let simulator: SimulatorAcquirer;
  let fault: Fault = 'NONE';
  /** The node's card vault (the one buildServices would make), for reading what a payment kept. */
  let cardVault: CardVault;
  const unexpected: { payId: string; step: string }[] = [];

  const authorize = async (r: AcquirerAuthorizationRequest) => {
    const now = fault;
    fault = 'NONE';
    if (now === 'UNREACHABLE') throw new Error('connect ETIMEDOUT');
    const result = await simulator.authorize(r);
    if (now === 'LOST_ANSWER') throw new Error('read ETIMEDOUT');
    if (now === 'HANG') return new Promise<never>(() => {});
    return result;
  };

  let h: ServiceHarness;
  beforeAll(async () => {
    const acquirer = acquirerAround(() => simulator, { authorize });
    h = await startServiceHarness(dialect, {
      merchantId: `ar_${dialect}`,
      hooks: { onUnexpectedError: (payId, step) => unexpected.push({ payId, step }) },
      overrides: (config, db) => {
        simulator = new SimulatorAcquirer(CsvBinTable.fromFile(config.binFile), ledger, () => clock.now());
        const keyring = new KyselyCardKeyring(db.db.kysely, SERVICE_TEST_DATA_KEY);
        cardVault = new KyselyCardVault(db.db.kysely, keyring, () => clock.now());
        // HANG is a node that died during the call: no deadline may end that call within the test (the deadline's own
        // tests: acquirer-deadline.test.ts).
        return {
          clock,
          acquirer,
          cardVault,
          authorizationRecovery: { pendingAfterMs: 120_000 },
          acquirerTimeoutMs: 3_600_000,
        };
      },
    });
    ({ database, services, store, merchant } = h);
    recovery = services.authorizationRecovery;
  });
  afterAll(async () => h?.close());

  const command = (pan: string, extra: Partial<CreatePaymentCommand> = {}) =>
    directCommand(merchant.merchantId, {
      amount: { value: 10_000, currency: 'DKK' },
      card: { number: pan, expiryDate: '203012', securityCode: '123' },
      ...extra,
    });
  const stored = async (payId: string) => {
    const db = database.db.kysely;
    const p = await db.selectFrom('payment').selectAll().where('pay_id', '=', payId).executeTakeFirstOrThrow();
    const ops = await db
      .selectFrom('payment_operation')
      .select(['x_id', 'type', 'status', 'value', 'response_code'])
      .where('pay_id', '=', payId)
      .orderBy('seq')
      .execute();
    const events = await db.selectFrom('notification').select('type').where('pay_id', '=', payId).execute();
    return {
      status: p.status,
      responseCode: p.response_code,
      capturedValue: Number(p.captured_value),
      ops: ops.map((o) => ({ xId: o.x_id, type: o.type, status: o.status, responseCode: o.response_code })),
      events: events.map((e) => e.type).filter((t) => t !== 'authentication'),
    };
  };
  const sales = async (payId: string) => (await ledger.records()).filter((r) => r.payId === payId);
  const later = (ms: number) => clock.set(new Date(clock.now().getTime() + ms).toISOString());
  /** Sweeps until nothing older than the pending age is left from earlier tests, so each test counts its own. */
  const drain = async () => {
    later(121_000);
    while ((await recovery.recoverInFlight()).done > 0);
  };

  // Money: the acquirer took it, Kassa never heard; the payment must not stay PENDING with the money gone.
  it('the acquirer approved but its answer was lost (60020001): the sweep records the sale, OK with its operations, once', async () => {
    await drain();
    fault = 'LOST_ANSWER';
    const p = await services.payments.createDirectPayment(merchant, command(testPan('40000000', '0001', '301')));
    expect(p).toMatchObject({ status: 'PENDING', responseCode: '60020001' });
    const [sale] = await sales(p.payId);
    expect(sale).toMatchObject({ type: 'SALE', value: 10_000 });
    // A retry of the order meanwhile is refused: the transId belongs to a payment that has not failed.
    await expect(
      services.payments.createDirectPayment(merchant, { ...command('4000000000010001'), transId: p.transId }),
    ).rejects.toMatchObject({ code: 'TRANS_ID_IN_USE' });

    expect(await recovery.recoverInFlight()).toEqual({ done: 0, failed: 0 }); // too young: its request may still finish
    later(121_000);
    expect(await recovery.recoverInFlight()).toEqual({ done: 1, failed: 0 });
    expect(await recovery.recoverInFlight()).toEqual({ done: 0, failed: 0 });
    const s = await stored(p.payId);
    expect(s).toMatchObject({ status: 'OK', responseCode: '00000000', capturedValue: 10_000 });
    expect(s.ops).toEqual([
      { xId: sale?.xId, type: 'AUTHORIZATION', status: 'OK', responseCode: '00000000' },
      { xId: expect.any(String), type: 'CAPTURE', status: 'OK', responseCode: '00000000' },
    ]);
    expect(s.events).toEqual(['payment.authorized']);
    expect(await sales(p.payId)).toHaveLength(1); // asked, never sent again
  });

  it('a MANUAL payment approved with its answer lost is recovered AUTHORIZED, and its capture reaches that authorization', async () => {
    await drain();
    fault = 'LOST_ANSWER';
    const p = await services.payments.createDirectPayment(
      merchant,
      command(testPan('40000000', '0001', '302'), { captureMethod: 'MANUAL' }),
    );
    later(121_000);
    expect(await recovery.recoverInFlight()).toEqual({ done: 1, failed: 0 });
    const s = await stored(p.payId);
    expect(s).toMatchObject({ status: 'AUTHORIZED', capturedValue: 0 });
    const captured = await services.followUps.capture(merchant, p.payId, {
      transId: p.transId,
      amount: { value: 10_000, currency: 'DKK' },
    });
    expect(captured.payment).toMatchObject({ status: 'OK', capturedValue: 10_000 });
    const [authorization, capture] = await sales(p.payId);
    expect(capture).toMatchObject({ type: 'CAPTURE', authorizationXId: authorization?.xId });
  });

  it('the node died during the acquirer call (60000001, its intent): the sweep records what the acquirer did', async () => {
    await drain();
    fault = 'HANG';
    const pan = testPan('40000000', '0001', '303');
    void services.payments.createDirectPayment(merchant, command(pan, { transId: 'died-mid-call' }));
    await expect.poll(async () => (await sales(await payIdOf('died-mid-call'))).length).toBe(1);
    const payId = await payIdOf('died-mid-call');
    expect(await stored(payId)).toMatchObject({ status: 'PENDING', responseCode: '60000001' });
    later(121_000);
    expect(await recovery.recoverInFlight()).toEqual({ done: 1, failed: 0 });
    expect(await stored(payId)).toMatchObject({
      status: 'OK',
      responseCode: '00000000',
      events: ['payment.authorized'],
    });
  });

  it('the acquirer was never reached: the sweep finds no record and FAILs it 40020096, and the transId is free again', async () => {
    await drain();
    fault = 'UNREACHABLE';
    const p = await services.payments.createDirectPayment(merchant, command(testPan('40000000', '0001', '304')));
    expect(p).toMatchObject({ status: 'PENDING', responseCode: '60020001' });
    later(121_000);
    expect(await recovery.recoverInFlight()).toEqual({ done: 1, failed: 0 });
    expect(await stored(p.payId)).toEqual({
      status: 'FAILED',
      responseCode: '40020096',
      capturedValue: 0,
      ops: [],
      events: ['payment.failed'],
    });
    const retry = await services.payments.createDirectPayment(merchant, {
      ...command(testPan('40000000', '0001', '304')),
      transId: p.transId,
    });
    expect(retry).toMatchObject({ status: 'OK' });
  });

  it('a decline whose answer was lost is recorded as the decline it was (20020051)', async () => {
    await drain();
    fault = 'LOST_ANSWER';
    const p = await services.payments.createDirectPayment(merchant, command(testPan('40000000', '1100', '305')));
    expect(p).toMatchObject({ status: 'PENDING', responseCode: '60020001' });
    later(121_000);
    expect(await recovery.recoverInFlight()).toEqual({ done: 1, failed: 0 });
    const s = await stored(p.payId);
    expect(s).toMatchObject({ status: 'FAILED', responseCode: '20020051', events: ['payment.failed'] });
    expect(s.ops).toMatchObject([{ type: 'AUTHORIZATION', status: 'FAILED', responseCode: '20020051' }]);
  });

  it('an acquirer that cannot answer the lookup leaves the payment for the next sweep', async () => {
    await drain();
    fault = 'UNREACHABLE';
    const p = await services.payments.createDirectPayment(merchant, command(testPan('40000000', '0001', '306')));
    later(121_000);
    const lookup = simulator.inquireAuthorization;
    simulator.inquireAuthorization = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    try {
      expect(await recovery.recoverInFlight()).toEqual({ done: 0, failed: 1 });
    } finally {
      simulator.inquireAuthorization = lookup;
    }
    expect(await stored(p.payId)).toMatchObject({ status: 'PENDING', responseCode: '60020001' });
    expect(await recovery.recoverInFlight()).toEqual({ done: 1, failed: 0 });
    expect(await stored(p.payId)).toMatchObject({ status: 'FAILED', responseCode: '40020096' });
  });

  // Stored credentials: the approval the sweep records must leave the card usable, as the request would have.
  const initial = (pan: string) =>
    command(pan, { informational: { credentialOnFile: { type: 'UNSCHEDULED', initialPayment: true } } });
  const vaulted = async (payId: string) =>
    (await database.db.kysely.selectFrom('pending_card').select('pay_id').where('pay_id', '=', payId).execute()).length;

  it('an initial stored-credential payment approved with its answer lost: the sweep stores its card, and a merchant-initiated payment with it is approved', async () => {
    await drain();
    fault = 'LOST_ANSWER';
    const p = await services.payments.createDirectPayment(merchant, initial(testPan('40000000', '0001', '307')));
    expect(p).toMatchObject({ status: 'PENDING', responseCode: '60020001' });
    // Its intent kept the card, encrypted and without its security code, for the sweep.
    expect(await cardVault.read(p.payId, clock.now())).toEqual({
      number: testPan('40000000', '0001', '307'),
      expiryDate: '203012',
    });
    later(121_000);
    expect(await recovery.recoverInFlight()).toEqual({ done: 1, failed: 0 });
    const recovered = await services.payments.getByPayId(merchant.merchantId, p.payId);
    expect(recovered).toMatchObject({ status: 'OK', card: { schemeReferenceId: expect.any(String) } });
    const pseudo = recovered.card?.pseudoCardNumber;
    expect(pseudo).toMatch(/^\d{16}$/);
    expect(await services.storedCards.get(merchant.merchantId, pseudo ?? '')).toMatchObject({
      status: 'ACTIVE',
      initialPayId: p.payId,
      schemeReferenceId: recovered.card?.schemeReferenceId,
    });
    expect(await vaulted(p.payId)).toBe(0); // the result's transaction took the card out of the vault

    const mit = await services.payments.createDirectPayment(
      merchant,
      command(pseudo ?? '', {
        card: { number: pseudo ?? '', expiryDate: '203012' },
        browserInfo: undefined,
        informational: {
          credentialOnFile: { type: 'UNSCHEDULED', initialPayment: false, unscheduled: { subType: 'MIT' } },
        },
      }),
    );
    expect(mit).toMatchObject({ status: 'OK', card: { pseudoCardNumber: pseudo } });
  });

  it('an initial payment authenticated by a challenge, its answer lost after the RReq: the sweep stores its card too', async () => {
    await drain();
    const pan = testPan('40000000', '1005', '312');
    const p = await services.payments.createDirectPayment(merchant, initial(pan));
    expect(p).toMatchObject({ status: 'PENDING', responseCode: '60010001' });
    const t = await store.threeDSTransactions.find(p.payId);
    fault = 'LOST_ANSWER'; // the authorization the RReq starts
    const done = await services.threeDSSimulator?.completeChallenge(t?.acsTransID ?? '', '02', { otp: '1234' });
    expect(done?.rreq.transStatus).toBe('Y');
    expect(await stored(p.payId)).toMatchObject({ status: 'PENDING', responseCode: '60020001' });
    later(121_000);
    expect(await recovery.recoverInFlight()).toEqual({ done: 1, failed: 0 });
    const recovered = await services.payments.getByPayId(merchant.merchantId, p.payId);
    expect(recovered).toMatchObject({ status: 'OK', threeDS: { transStatus: 'Y' } });
    expect(recovered.card?.pseudoCardNumber).toMatch(/^\d{16}$/);
    expect(await services.storedCards.get(merchant.merchantId, recovered.card?.pseudoCardNumber ?? '')).toMatchObject({
      status: 'ACTIVE',
      initialPayId: p.payId,
    });
    expect(await vaulted(p.payId)).toBe(0);
  });

  it('an initial payment answered at once leaves no card in the vault, approved or declined; a taken transId writes none', async () => {
    await drain();
    const approved = await services.payments.createDirectPayment(merchant, initial(testPan('40000000', '0001', '308')));
    expect(approved).toMatchObject({ status: 'OK', card: { pseudoCardNumber: expect.any(String) } });
    const declined = await services.payments.createDirectPayment(merchant, initial(testPan('40000000', '1100', '309')));
    expect(declined).toMatchObject({ status: 'FAILED', responseCode: '20020051' });
    expect(await vaulted(approved.payId)).toBe(0);
    expect(await vaulted(declined.payId)).toBe(0);
    const cards = async () => (await database.db.kysely.selectFrom('pending_card').select('pay_id').execute()).length;
    const before = await cards();
    await expect(
      services.payments.createDirectPayment(merchant, {
        ...initial(testPan('40000000', '0001', '310')),
        transId: approved.transId,
      }),
    ).rejects.toMatchObject({ code: 'TRANS_ID_IN_USE' });
    expect(await cards()).toBe(before);
  });

  it('an initial payment whose vaulted card expired before the sweep is still recorded as the sale it was, without a stored card', async () => {
    await drain();
    fault = 'LOST_ANSWER';
    const p = await services.payments.createDirectPayment(merchant, initial(testPan('40000000', '0001', '311')));
    later(31 * 60_000); // past the vault's 30 minutes: the acquirer's lookup was out that long
    unexpected.length = 0; // the lost answer itself was reported; the sweep's report is what counts here
    expect(await recovery.recoverInFlight()).toEqual({ done: 1, failed: 0 });
    const recovered = await services.payments.getByPayId(merchant.merchantId, p.payId);
    expect(recovered).toMatchObject({ status: 'OK', responseCode: '00000000' });
    expect(recovered.card?.pseudoCardNumber).toBeUndefined();
    expect(await vaulted(p.payId)).toBe(0);
    expect(unexpected).toContainEqual({ payId: p.payId, step: 'acquirer' }); // the lost card is reported
  });

  const payIdOf = async (transId: string): Promise<string> =>
    (await store.payments.findLatestByTransId(merchant.merchantId, transId))?.payId ?? 'none';
});
