/**
 * Every acquirer call has a deadline (DeadlineAcquirer, ACQUIRER_TIMEOUT_MS) inside the recovery sweeps' pending
 * ages: a call that never answers ends its request as a transport failure — the authorization PENDING 60020001, the
 * follow-up PENDING — and the sweeps resolve it by the acquirer's status lookup. Unit tests of the decorator, and
 * service-level tests (PaymentService, FollowUpService and the sweeps over the real KyselyStore on every dialect, the
 * simulated acquirer acting on each message and then not answering, a short deadline and a settable clock).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Merchant } from '../../../src/domain/merchants/merchant.js';
import {
  ACQUIRER_TIMEOUT_MS,
  AcquirerTimeoutError,
  DeadlineAcquirer,
} from '../../../src/domain/payments/acquirer-deadline.js';
import { DEFAULT_AUTHORIZATION_RECOVERY } from '../../../src/domain/payments/authorization-recovery.js';
import { DEFAULT_FOLLOW_UP_RECOVERY } from '../../../src/domain/payments/follow-up-recovery.js';
import type { CreatePaymentCommand } from '../../../src/domain/payments/payment-request.js';
import type { Acquirer } from '../../../src/domain/ports/acquirer.js';
import { MemorySettlementLedger } from '../../../src/integrations/acquirer-simulator/settlement-ledger.js';
import { SimulatorAcquirer } from '../../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../../src/integrations/bins/csv-bin-table.js';
import type { Services } from '../../../src/services.js';
import { acquirerAround } from '../../helpers/acquirer.js';
import { testPan } from '../../helpers/cards.js';
import { DIALECTS, type FreshDatabase } from '../../helpers/dialects.js';
import { type ServiceHarness, startServiceHarness } from '../../helpers/service-harness.js';
import { directCommand, fixedClock } from '../threeds/three-ds-fixtures.js';

const never = <T>() => new Promise<T>(() => {});

describe('DeadlineAcquirer', () => {
  const answering: Acquirer = {
    authorize: async () => ({
      outcome: 'APPROVED',
      authorizationCode: '123456',
      acquirerReference: 'R',
      responseCode: '00',
    }),
    capture: async () => ({ outcome: 'APPROVED', acquirerReference: 'R', responseCode: '00' }),
    refund: async () => {
      throw new Error('connect ECONNREFUSED');
    },
    reverse: never,
    inquire: never,
    inquireAuthorization: async () => undefined,
  };

  it('passes answers and transport failures through as they come', async () => {
    const acquirer = new DeadlineAcquirer(answering, 1_000);
    await expect(acquirer.capture({} as never)).resolves.toMatchObject({ outcome: 'APPROVED' });
    await expect(acquirer.inquireAuthorization('p')).resolves.toBeUndefined();
    await expect(acquirer.refund({} as never)).rejects.toThrow('ECONNREFUSED');
  });

  it('a call that does not answer within the deadline throws AcquirerTimeoutError naming the call, not before', async () => {
    const acquirer = new DeadlineAcquirer(answering, 150);
    const started = performance.now();
    const error = await acquirer.reverse({} as never).catch((e: unknown) => e);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(error).toBeInstanceOf(AcquirerTimeoutError);
    expect(error).toMatchObject({ call: 'reverse', timeoutMs: 150 });
    await expect(acquirer.inquire('x')).rejects.toThrow('the acquirer did not answer inquire within 150 ms');
  });

  it('the call’s signal is aborted at the deadline with the timeout as its reason, and stays unaborted for an answer', async () => {
    const signals: AbortSignal[] = [];
    const listening: Acquirer = {
      ...answering,
      capture: async (_request, options) => {
        if (options?.signal) signals.push(options.signal);
        return { outcome: 'APPROVED', acquirerReference: 'R', responseCode: '00' };
      },
      reverse: (_request, options) => {
        if (options?.signal) signals.push(options.signal);
        return never();
      },
    };
    const acquirer = new DeadlineAcquirer(listening, 100);
    await acquirer.capture({} as never);
    const error = await acquirer.reverse({} as never).catch((e: unknown) => e);
    const [answered, silent] = signals;
    expect(answered?.aborted).toBe(false);
    expect(silent?.aborted).toBe(true);
    expect(silent?.reason).toBe(error);
    expect(error).toBeInstanceOf(AcquirerTimeoutError);
  });

  it('the simulator sends nothing for a call whose signal is aborted already', async () => {
    const ledger = new MemorySettlementLedger();
    const simulator = new SimulatorAcquirer(CsvBinTable.fromFile('data/bins.csv'), ledger);
    const reason = new AcquirerTimeoutError('authorize', 1);
    const request = {
      xId: 'a'.repeat(32),
      payId: 'b'.repeat(32),
      merchantId: 'm',
      pan: testPan('40000000', '0001', '401'),
      expiryDate: '203012',
      brand: 'VISA',
      value: 100,
      currency: 'DKK',
      capture: true,
    } as const;
    await expect(simulator.authorize(request, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    await expect(simulator.capture({} as never, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(await ledger.records()).toEqual([]);
    await expect(simulator.authorize(request, { signal: new AbortController().signal })).resolves.toMatchObject({
      outcome: 'APPROVED',
    });
    expect(await ledger.records()).toHaveLength(1);
  });

  it('the default deadline lies inside both recovery sweeps’ pending ages', () => {
    expect(ACQUIRER_TIMEOUT_MS).toBeLessThan(DEFAULT_FOLLOW_UP_RECOVERY.pendingAfterMs);
    expect(ACQUIRER_TIMEOUT_MS).toBeLessThan(DEFAULT_AUTHORIZATION_RECOVERY.pendingAfterMs);
  });
});

describe.each(DIALECTS)('an acquirer that does not answer ends the request at the deadline (%s)', (dialect) => {
  const DEADLINE_MS = 300;
  const clock = fixedClock('2026-11-28T10:00:00.000Z');
  const ledger = new MemorySettlementLedger();
  let simulator: SimulatorAcquirer;
  /** The next message reaches the simulator, which acts on it; its answer never comes back. */
  let silent = false;
  const silence = <T>(answer: Promise<T>): Promise<T> => {
    if (!silent) return answer;
    silent = false;
    return answer.then(never<T>);
  };
  let h: ServiceHarness;
  let services: Services;
  let merchant: Merchant;
  let database: FreshDatabase;

  beforeAll(async () => {
    const acquirer = acquirerAround(() => simulator, {
      authorize: (r) => silence(simulator.authorize(r)),
      followUps: (send) => (r) => silence(send(r)),
    });
    h = await startServiceHarness(dialect, {
      merchantId: `ad_${dialect}`,
      overrides: (config) => {
        simulator = new SimulatorAcquirer(CsvBinTable.fromFile(config.binFile), ledger, () => clock.now());
        return { clock, acquirer, acquirerTimeoutMs: DEADLINE_MS };
      },
    });
    ({ services, merchant, database } = h);
  });
  afterAll(async () => h?.close());

  const later = (ms: number) => clock.set(new Date(clock.now().getTime() + ms).toISOString());
  const command = (pan: string, extra: Partial<CreatePaymentCommand> = {}) =>
    directCommand(merchant.merchantId, {
      amount: { value: 10_000, currency: 'DKK' },
      card: { number: pan, expiryDate: '203012', securityCode: '123' },
      ...extra,
    });
  const operations = (payId: string) =>
    database.db.kysely
      .selectFrom('payment_operation')
      .select(['type', 'status'])
      .where('pay_id', '=', payId)
      .orderBy('seq')
      .execute();

  it('an authorization: the payment answers PENDING 60020001, and the sweep records the sale the acquirer made', async () => {
    silent = true;
    const started = performance.now();
    const p = await services.payments.createDirectPayment(merchant, command(testPan('40000000', '0001', '401')));
    expect(performance.now() - started).toBeGreaterThanOrEqual(DEADLINE_MS - 10);
    expect(p).toMatchObject({ status: 'PENDING', responseCode: '60020001' });
    expect((await ledger.records()).filter((r) => r.payId === p.payId)).toHaveLength(1); // the acquirer acted
    later(121_000);
    expect(await services.authorizationRecovery.recoverInFlight()).toEqual({ done: 1, failed: 0 });
    expect(await services.payments.getByPayId(merchant.merchantId, p.payId)).toMatchObject({
      status: 'OK',
      responseCode: '00000000',
    });
    expect(await operations(p.payId)).toEqual([
      { type: 'AUTHORIZATION', status: 'OK' },
      { type: 'CAPTURE', status: 'OK' },
    ]);
  });

  it('a capture: the operation answers PENDING, and the sweep completes it from the acquirer’s record', async () => {
    const p = await services.payments.createDirectPayment(
      merchant,
      command(testPan('40000000', '0001', '402'), { captureMethod: 'MANUAL' }),
    );
    expect(p.status).toBe('AUTHORIZED');
    silent = true;
    const started = performance.now();
    const captured = await services.followUps.capture(merchant, p.payId, {
      transId: p.transId,
      amount: { value: 10_000, currency: 'DKK' },
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(DEADLINE_MS - 10);
    expect(captured.operation).toMatchObject({ type: 'CAPTURE', status: 'PENDING' });
    later(31_000);
    expect(await services.followUpRecovery.recoverPending()).toEqual({ done: 1, failed: 0 });
    expect(await services.payments.getByPayId(merchant.merchantId, p.payId)).toMatchObject({
      status: 'OK',
      capturedValue: 10_000,
    });
    expect(await operations(p.payId)).toEqual([
      { type: 'AUTHORIZATION', status: 'OK' },
      { type: 'CAPTURE', status: 'OK' },
    ]);
  });
});
