/**
 * Every directory server call has a deadline (DeadlineDirectoryServer, DIRECTORY_SERVER_TIMEOUT_MS) far inside the
 * authorization sweep's pending age: an AReq that is never answered ends its payment FAILED 20010004 (authentication
 * could not be performed) without reaching the acquirer, so a late ARes cannot take a payment on to the acquirer after
 * the sweep has failed it and freed its transId. Unit tests of the decorator; service-level tests (PaymentService over
 * the real KyselyStore on every dialect, the simulated DS answering card ranges and then not answering the AReq).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Merchant } from '../../../src/domain/merchants/merchant.js';
import { DEFAULT_AUTHORIZATION_RECOVERY } from '../../../src/domain/payments/authorization-recovery.js';
import type { CallOptions } from '../../../src/domain/ports/deadline.js';
import type { DirectoryServer } from '../../../src/domain/ports/directory-server.js';
import {
  DeadlineDirectoryServer,
  DIRECTORY_SERVER_TIMEOUT_MS,
  DirectoryServerTimeoutError,
} from '../../../src/domain/threeds/directory-server-deadline.js';
import { buildAReq } from '../../../src/domain/threeds/three-ds-server.js';
import { MemorySettlementLedger } from '../../../src/integrations/acquirer-simulator/settlement-ledger.js';
import { SimulatorAcquirer } from '../../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../../src/integrations/bins/csv-bin-table.js';
import { SimulatorDirectoryServer } from '../../../src/integrations/threeds-simulator/simulator-directory-server.js';
import type { Services } from '../../../src/services.js';
import { testPan } from '../../helpers/cards.js';
import { DIALECTS } from '../../helpers/dialects.js';
import { type ServiceHarness, startServiceHarness } from '../../helpers/service-harness.js';
import { authenticateInput, directCommand, fixedClock } from './three-ds-fixtures.js';

const never = <T>() => new Promise<T>(() => {});

describe('DeadlineDirectoryServer', () => {
  const ds = new SimulatorDirectoryServer({
    publicUrl: 'https://kassa.test',
    clock: fixedClock('2026-11-28T10:00:00Z'),
  });

  it('passes the DS’s answers through with an unaborted signal', async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const watched: DirectoryServer = {
      cardRange: (pan, options?: CallOptions) => {
        signals.push(options?.signal);
        return ds.cardRange(pan);
      },
      authenticate: (areq) => ds.authenticate(areq),
    };
    const range = await new DeadlineDirectoryServer(watched, 1_000).cardRange(
      authenticateInput('4000000000010001').pan,
    );
    expect(range).toMatchObject({ startRange: expect.any(String) });
    expect(signals[0]?.aborted).toBe(false);
  });

  it('an AReq not answered within the deadline throws DirectoryServerTimeoutError, not before, and aborts the call', async () => {
    let signal: AbortSignal | undefined;
    const silent: DirectoryServer = {
      cardRange: (pan) => ds.cardRange(pan),
      authenticate: (_areq, options) => {
        signal = options?.signal;
        return never();
      },
    };
    const started = performance.now();
    const error = await new DeadlineDirectoryServer(silent, 150).authenticate({} as never).catch((e: unknown) => e);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(error).toBeInstanceOf(DirectoryServerTimeoutError);
    expect(error).toMatchObject({ call: 'authenticate', timeoutMs: 150 });
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe(error);
  });

  it('the simulated DS sends nothing for an AReq whose signal is aborted already', async () => {
    const input = authenticateInput('4000000000010001');
    const range = await ds.cardRange(input.pan);
    const areq = buildAReq({ ...input, messageVersion: range?.acsEndProtocolVersion ?? '2.2.0', now: new Date() });
    const reason = new DirectoryServerTimeoutError('authenticate', 1);
    await expect(ds.authenticate(areq, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    await expect(ds.authenticate(areq, { signal: new AbortController().signal })).resolves.toMatchObject({
      messageType: 'ARes',
      transStatus: 'Y',
    });
  });

  it('the default deadline lies far inside the authorization sweep’s pending age', () => {
    expect(DIRECTORY_SERVER_TIMEOUT_MS).toBeLessThanOrEqual(DEFAULT_AUTHORIZATION_RECOVERY.pendingAfterMs / 10);
  });
});

describe.each(DIALECTS)('a directory server that does not answer ends the payment at the deadline (%s)', (dialect) => {
  const clock = fixedClock('2026-11-28T10:00:00.000Z');
  const ledger = new MemorySettlementLedger();
  let h: ServiceHarness;
  let services: Services;
  let merchant: Merchant;

  beforeAll(async () => {
    h = await startServiceHarness(dialect, {
      merchantId: `dsd_${dialect}`,
      overrides: (config) => {
        const ds = new SimulatorDirectoryServer({ publicUrl: config.publicUrl, clock });
        return {
          clock,
          // The card ranges come (the PRes cache); the AReq is sent and its ARes never comes back.
          directoryServer: { cardRange: (pan) => ds.cardRange(pan), authenticate: never },
          directoryServerTimeoutMs: 300,
          acquirer: new SimulatorAcquirer(CsvBinTable.fromFile(config.binFile), ledger, () => clock.now()),
        };
      },
    });
    ({ services, merchant } = h);
  });
  afterAll(async () => h?.close());

  it('FAILED 20010004 with payment.failed, the acquirer never called, the transId free again', async () => {
    const command = directCommand(merchant.merchantId, {
      card: { number: testPan('40000000', '0001', '402'), expiryDate: '203012', securityCode: '123' },
    });
    const started = performance.now();
    const p = await services.payments.createDirectPayment(merchant, command);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(p).toMatchObject({ status: 'FAILED', responseCode: '20010004' });
    expect(await ledger.records()).toEqual([]);
    const events = await h.database.db.kysely
      .selectFrom('notification')
      .select('type')
      .where('pay_id', '=', p.payId)
      .execute();
    expect(events.map((e) => e.type)).toContain('payment.failed');
    const stored = await services.payments.getByPayId(merchant.merchantId, p.payId);
    expect(stored).toMatchObject({ status: 'FAILED', responseCode: '20010004' });
    // A retry of the order is taken (not TRANS_ID_IN_USE): this DS still does not answer, so it fails the same way.
    const retry = await services.payments.createDirectPayment(merchant, command);
    expect(retry).toMatchObject({ transId: command.transId, status: 'FAILED', responseCode: '20010004' });
    expect(retry.payId).not.toBe(p.payId);
  });
});
