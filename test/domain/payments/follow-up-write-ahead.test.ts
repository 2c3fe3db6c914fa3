/**
 * Write-ahead follow-ups (issue 9 defect 3), finishAuth (issue 10 item 3) and DELAYED capture (issue 10 item 2) at
 * service level: FollowUpService and FollowUpRecovery over the real KyselyStore on every dialect, the simulated
 * acquirer (with faults injected around it) and a settable clock.
 */

import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Merchant } from '../../../src/domain/merchants/merchant.js';
import { FollowUpRecovery } from '../../../src/domain/payments/follow-up-recovery.js';
import { FollowUpService, type FollowUpServiceDeps } from '../../../src/domain/payments/follow-up-service.js';
import type { Payment } from '../../../src/domain/payments/payment.js';
import type { CreatePaymentCommand } from '../../../src/domain/payments/payment-request.js';
import type { AcquirerFollowUpRequest } from '../../../src/domain/ports/acquirer.js';
import type { Store } from '../../../src/domain/ports/store.js';
import {
  MemorySettlementLedger,
  settlementTotals,
} from '../../../src/integrations/acquirer-simulator/settlement-ledger.js';
import { SimulatorAcquirer } from '../../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../../src/integrations/bins/csv-bin-table.js';
import type { Services } from '../../../src/services.js';
import type { KyselyStore } from '../../../src/storage/kysely-store.js';
import { acquirerAround, type FollowUpSend } from '../../helpers/acquirer.js';
import { testPan } from '../../helpers/cards.js';
import { DIALECTS, type FreshDatabase } from '../../helpers/dialects.js';
import { type ServiceHarness, startServiceHarness } from '../../helpers/service-harness.js';
import { browserInfo as BROWSER, fixedClock } from '../threeds/three-ds-fixtures.js';

const PUBLIC_URL = 'https://kassa.test';
const HOUR = 3_600_000;

/** What the fault-injecting acquirer does with the next follow-up. */
type Fault = 'NONE' | 'LOST_ANSWER' | 'UNREACHABLE';

describe.each(DIALECTS)('write-ahead follow-ups, finishAuth and DELAYED capture (%s)', (dialect) => {
  let database: FreshDatabase;
  let services: Services;
  let store: KyselyStore;
  let merchant: Merchant;
  const clock = fixedClock('2026-11-23T10:00:00.000Z');
  const ledger = new MemorySettlementLedger();
  let simulator: SimulatorAcquirer;
  let fault: Fault = 'NONE';
  /** While set, follow-ups wait for it before reaching the simulator. */
  let gate: Promise<void> | undefined;

  /**
   * The simulator behind a cable we control: LOST_ANSWER books the follow-up then throws (a timeout after the
   * acquirer acted); UNREACHABLE throws before the acquirer sees it.
   */
  const faulty = (send: FollowUpSend): FollowUpSend => {
    return async (r: AcquirerFollowUpRequest) => {
      if (gate) await gate;
      const now = fault;
      fault = 'NONE';
      if (now === 'UNREACHABLE') throw new Error('connect ETIMEDOUT');
      const result = await send(r);
      if (now === 'LOST_ANSWER') throw new Error('read ETIMEDOUT');
      return result;
    };
  };

  let deps: FollowUpServiceDeps;
  let recovery: FollowUpRecovery;

  let h: ServiceHarness;
  beforeAll(async () => {
    const acquirer = acquirerAround(() => simulator, { followUps: faulty });
    h = await startServiceHarness(dialect, {
      merchantId: `wa_${dialect}`,
      overrides: (config) => {
        simulator = new SimulatorAcquirer(CsvBinTable.fromFile(config.binFile), ledger, () => clock.now());
        return { clock, acquirer, followUpRecovery: { pendingAfterMs: 30_000 } };
      },
    });
    ({ database, services, store, merchant } = h);
    deps = {
      store,
      clock,
      ids: { uuid: () => crypto.randomUUID(), timeOrderedUuid: () => uuidv7(), randomToken: () => 'x' },
      acquirer,
      publicUrl: PUBLIC_URL,
    };
    recovery = services.followUpRecovery;
  });
  afterAll(async () => h?.close());

  const authorized = async (extra: Partial<CreatePaymentCommand> = {}): Promise<Payment> => {
    const p = await services.payments.createDirectPayment(merchant, {
      merchantId: merchant.merchantId,
      transId: `t-${Math.random().toString(36).slice(2, 12)}`,
      amount: { value: 10_000, currency: 'DKK' },
      captureMethod: 'MANUAL',
      integrationType: 'DIRECT',
      channel: 'MOTO',
      card: { number: testPan('40000000', '1000'), expiryDate: '203012', securityCode: '123' },
      challengePreference: 'NO_PREFERENCE',
      browserInfo: BROWSER,
      ...extra,
    });
    expect(p.status).toBe('AUTHORIZED');
    return p;
  };
  const amount = (value: number) => ({ value, currency: 'DKK' });
  const stored = async (payId: string) => {
    const db = database.db.kysely;
    const p = await db.selectFrom('payment').selectAll().where('pay_id', '=', payId).executeTakeFirstOrThrow();
    const ops = await db
      .selectFrom('payment_operation')
      .select(['x_id', 'type', 'status', 'value'])
      .where('pay_id', '=', payId)
      .orderBy('seq')
      .execute();
    const events = await db.selectFrom('notification').select('type').where('pay_id', '=', payId).execute();
    return {
      status: p.status,
      capturedValue: Number(p.captured_value),
      refundedValue: Number(p.refunded_value),
      captureDueAt: p.capture_due_at,
      ops: ops.map((o) => ({ xId: o.x_id, type: o.type, status: o.status, value: Number(o.value) })),
      events: events.map((e) => e.type).filter((t) => t !== 'payment.authorized' && t !== 'authentication'),
    };
  };
  const booked = async (payId: string) =>
    (await ledger.records()).filter((r) => r.payId === payId && r.type !== 'AUTHORIZATION');
  const later = (ms: number) => clock.set(new Date(clock.now().getTime() + ms).toISOString());

  // (a) Money: a database failure after the acquirer approved leaves a PENDING operation that the sweep completes.
  it('the result write fails after the acquirer approved: the operation stays PENDING, the sweep completes it to OK once', async () => {
    const p = await authorized();
    // A store whose transaction 2 fails (the connection drops while recording the acquirer's answer).
    const failing: Store = Object.assign(Object.create(store) as Store, {
      transaction: <T>(work: (tx: Store) => Promise<T>) =>
        store.transaction((tx) =>
          work(
            Object.assign(Object.create(tx) as Store, {
              followUpOperations: Object.assign(Object.create(tx.followUpOperations), {
                complete: async () => {
                  throw new Error('Connection terminated unexpectedly');
                },
              }),
            }),
          ),
        ),
    });
    const unknown: string[] = [];
    const service = new FollowUpService({ ...deps, store: failing, onUnknownOutcome: (xId) => unknown.push(xId) });
    const outcome = await service.capture(merchant, p.payId, { transId: p.transId, amount: amount(4_000) });
    expect(outcome.operation).toMatchObject({ type: 'CAPTURE', status: 'PENDING', responseCode: '60020002' });
    expect(unknown).toEqual([outcome.operation.xId]);
    let s = await stored(p.payId);
    expect(s).toMatchObject({ status: 'AUTHORIZED', capturedValue: 0, events: [] });
    expect(s.ops.at(-1)).toEqual({ xId: outcome.operation.xId, type: 'CAPTURE', status: 'PENDING', value: 4_000 });
    expect((await booked(p.payId)).map((r) => r.xId)).toEqual([outcome.operation.xId]);

    // The amount is reserved meanwhile: 6 001 more cannot be captured.
    await expect(
      services.followUps.capture(merchant, p.payId, { transId: p.transId, amount: amount(6_001) }),
    ).rejects.toMatchObject({ code: 'CAPTURE_EXCEEDS_AUTHORIZED' });

    expect(await recovery.recoverPending()).toEqual({ done: 0, failed: 0 }); // too young: its request may still finish
    later(31_000);
    expect(await recovery.recoverPending()).toEqual({ done: 1, failed: 0 });
    expect(await recovery.recoverPending()).toEqual({ done: 0, failed: 0 });
    s = await stored(p.payId);
    expect(s).toMatchObject({ status: 'OK', capturedValue: 4_000, events: ['payment.captured'] });
    expect(s.ops.at(-1)).toMatchObject({ xId: outcome.operation.xId, status: 'OK' });
    expect((await booked(p.payId)).map((r) => r.xId)).toEqual([outcome.operation.xId]); // booked once
  });

  // (b) Money: an acquirer that does not answer never yields success; the sweep asks it and completes.
  it('acquirer throws after booking (answer lost): the answer is PENDING, the sweep resolves it to OK, booked once', async () => {
    const p = await authorized();
    fault = 'LOST_ANSWER';
    const outcome = await services.followUps.capture(merchant, p.payId, { transId: p.transId, amount: amount(2_500) });
    expect(outcome.operation.status).toBe('PENDING');
    expect(outcome.payment).toMatchObject({ status: 'AUTHORIZED', capturedValue: 0 });
    expect(await booked(p.payId)).toHaveLength(1);
    later(31_000);
    expect(await recovery.recoverPending()).toEqual({ done: 1, failed: 0 });
    const s = await stored(p.payId);
    expect(s).toMatchObject({ status: 'OK', capturedValue: 2_500, events: ['payment.captured'] });
    expect((await booked(p.payId)).map((r) => r.xId)).toEqual([outcome.operation.xId]);
  });

  it('acquirer never reached: the answer is PENDING, the sweep finds no record and FAILs it, releasing the reservation', async () => {
    const p = await authorized();
    fault = 'UNREACHABLE';
    const outcome = await services.followUps.capture(merchant, p.payId, { transId: p.transId, amount: amount(10_000) });
    expect(outcome.operation.status).toBe('PENDING');
    later(31_000);
    expect(await recovery.recoverPending()).toEqual({ done: 1, failed: 0 });
    const s = await stored(p.payId);
    expect(s).toMatchObject({ status: 'AUTHORIZED', capturedValue: 0, events: [] });
    expect(s.ops.at(-1)).toMatchObject({ xId: outcome.operation.xId, status: 'FAILED' });
    expect(await booked(p.payId)).toEqual([]);
    // The reservation is released: the whole amount can be captured again.
    const again = await services.followUps.capture(merchant, p.payId, { transId: p.transId, amount: amount(10_000) });
    expect(again.operation.status).toBe('OK');
  });

  it('a reversal whose answer was lost is resolved to REVERSED with one payment.reversed', async () => {
    const p = await authorized();
    fault = 'LOST_ANSWER';
    const outcome = await services.followUps.reverse(merchant, p.payId, { transId: p.transId });
    expect(outcome.operation.status).toBe('PENDING');
    // A capture while the reversal is pending is refused: the authorization is being released.
    await expect(
      services.followUps.capture(merchant, p.payId, { transId: p.transId, amount: amount(1) }),
    ).rejects.toMatchObject({ code: 'PAYMENT_NOT_CAPTURABLE' });
    later(31_000);
    await recovery.recoverPending();
    expect(await stored(p.payId)).toMatchObject({ status: 'REVERSED', events: ['payment.reversed'] });
  });

  // (c) Money: two captures at once against a reserved amount never over-capture.
  it('two concurrent captures of 6 000 on 10 000 while the acquirer is slow: one is reserved and OK, the other 409', async () => {
    const p = await authorized();
    let open: () => void = () => {};
    gate = new Promise((resolve) => {
      open = resolve;
    });
    const first = services.followUps.capture(merchant, p.payId, { transId: p.transId, amount: amount(6_000) });
    // Wait until the first is reserved (PENDING in the database) and waiting for the acquirer.
    await expect.poll(async () => (await stored(p.payId)).ops.filter((o) => o.status === 'PENDING').length).toBe(1);
    const second = services.followUps.capture(merchant, p.payId, { transId: p.transId, amount: amount(6_000) });
    await expect(second).rejects.toMatchObject({ code: 'CAPTURE_EXCEEDS_AUTHORIZED' });
    const third = services.followUps.capture(merchant, p.payId, { transId: p.transId, amount: amount(4_000) });
    open();
    gate = undefined;
    expect((await first).operation.status).toBe('OK');
    expect((await third).operation.status).toBe('OK');
    const s = await stored(p.payId);
    expect(s).toMatchObject({ status: 'OK', capturedValue: 10_000 });
    expect((await booked(p.payId)).reduce((sum, r) => sum + r.value, 0)).toBe(10_000);

    const q = await authorized();
    const both = await Promise.allSettled(
      [1, 2].map(() => services.followUps.capture(merchant, q.payId, { transId: q.transId, amount: amount(6_000) })),
    );
    expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await stored(q.payId)).capturedValue).toBe(6_000);
    expect((await booked(q.payId)).reduce((sum, r) => sum + r.value, 0)).toBe(6_000);
  });

  // finishAuth "Y": the final capture releases the rest; nothing more can be captured; refunds up to the captured.
  it('finishAuth: a final capture of 4 000 releases the other 6 000 at the acquirer; no further capture; refunds ≤ 4 000', async () => {
    const p = await authorized();
    const outcome = await services.followUps.capture(merchant, p.payId, {
      transId: p.transId,
      amount: amount(4_000),
      finishAuth: true,
    });
    expect(outcome.operation).toMatchObject({ status: 'OK', finalCapture: true });
    expect(outcome.payment).toMatchObject({ status: 'OK', capturedValue: 4_000 });
    expect((await booked(p.payId))[0]).toMatchObject({ type: 'CAPTURE', finalCapture: true, value: 4_000 });
    expect(settlementTotals(await ledger.records()).get(p.payId)).toMatchObject({ captured: 4_000, released: 6_000 });
    await expect(
      services.followUps.capture(merchant, p.payId, { transId: p.transId, amount: amount(1) }),
    ).rejects.toMatchObject({ code: 'PAYMENT_NOT_CAPTURABLE' });
    await expect(
      services.followUps.refund(merchant, p.payId, { transId: p.transId, amount: amount(4_001) }),
    ).rejects.toMatchObject({ code: 'REFUND_EXCEEDS_CAPTURED' });
    const refund = await services.followUps.refund(merchant, p.payId, { transId: p.transId, amount: amount(4_000) });
    expect(refund.payment).toMatchObject({ status: 'OK', refundedValue: 4_000 });
    // The flag survives a reload from the database.
    const reloaded = await services.payments.getByPayId(merchant.merchantId, p.payId);
    expect(reloaded.operations.find((o) => o.type === 'CAPTURE')?.finalCapture).toBe(true);
  });

  // DELAYED: captured in full after delayedHours by the sweep, unless captured or reversed before.
  it('DELAYED 2 h: AUTHORIZED like MANUAL, captured in full by the sweep after 2 h with payment.captured', async () => {
    const p = await authorized({
      captureMethod: 'DELAYED',
      delayedHours: 2,
      informational: { captureMethod: { type: 'DELAYED', delayed: { delayedHours: 2 } } },
    });
    expect((await stored(p.payId)).captureDueAt).toBe(new Date(clock.now().getTime() + 2 * HOUR).toISOString());
    later(2 * HOUR - 1_000);
    expect(await recovery.captureDue()).toEqual({ done: 0, failed: 0 });
    expect((await stored(p.payId)).status).toBe('AUTHORIZED');
    later(1_000);
    expect(await recovery.captureDue()).toEqual({ done: 1, failed: 0 });
    const s = await stored(p.payId);
    expect(s).toMatchObject({ status: 'OK', capturedValue: 10_000, captureDueAt: null, events: ['payment.captured'] });
    later(HOUR);
    expect(await recovery.captureDue()).toEqual({ done: 0, failed: 0 });
    expect(await booked(p.payId)).toHaveLength(1);
  });

  it('DELAYED: a payment captured (in part) or reversed before its time is not captured automatically', async () => {
    const info = { captureMethod: { type: 'DELAYED' as const, delayed: { delayedHours: 1 } } };
    const a = await authorized({ captureMethod: 'DELAYED', delayedHours: 1, informational: info });
    const b = await authorized({ captureMethod: 'DELAYED', delayedHours: 1, informational: info });
    await services.followUps.capture(merchant, a.payId, { transId: a.transId, amount: amount(3_000) });
    await services.followUps.reverse(merchant, b.payId, { transId: b.transId });
    later(2 * HOUR);
    await recovery.captureDue();
    expect(await stored(a.payId)).toMatchObject({ capturedValue: 3_000, captureDueAt: null });
    expect(await stored(b.payId)).toMatchObject({ status: 'REVERSED', capturedValue: 0, captureDueAt: null });
    expect((await booked(a.payId)).map((r) => r.type)).toEqual(['CAPTURE']);
    expect((await booked(b.payId)).map((r) => r.type)).toEqual(['REVERSAL']);
  });

  it('DELAYED without delayedHours is refused with 400 naming captureMethod.delayed.delayedHours', async () => {
    await expect(
      services.payments.createDirectPayment(merchant, {
        merchantId: merchant.merchantId,
        transId: 'delayed-no-hours',
        amount: amount(1_000),
        captureMethod: 'DELAYED',
        integrationType: 'DIRECT',
        channel: 'MOTO',
        card: { number: testPan('40000000', '1000'), expiryDate: '203012', securityCode: '123' },
        challengePreference: 'NO_PREFERENCE',
      }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [expect.objectContaining({ field: 'captureMethod.delayed.delayedHours' })],
    });
  });

  // Two nodes sweeping at once capture each due payment once (claims: FOR UPDATE SKIP LOCKED / one writer).
  it('two DELAYED-capture sweeps running at once capture each of 8 due payments exactly once', async () => {
    const info = { captureMethod: { type: 'DELAYED' as const, delayed: { delayedHours: 1 } } };
    const payments = await Promise.all(
      Array.from({ length: 8 }, () => authorized({ captureMethod: 'DELAYED', delayedHours: 1, informational: info })),
    );
    later(HOUR + 1_000);
    const other = new FollowUpRecovery(deps, new FollowUpService(deps));
    const reports = await Promise.all([recovery.captureDue(), other.captureDue(), recovery.captureDue()]);
    expect(reports.reduce((n, r) => n + r.done, 0)).toBe(8);
    for (const p of payments) {
      expect(await booked(p.payId)).toHaveLength(1);
      expect(await stored(p.payId)).toMatchObject({
        status: 'OK',
        capturedValue: 10_000,
        events: ['payment.captured'],
      });
    }
  });
});
