import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import type { AcquirerAuthorizationRequest } from '../../../src/domain/ports/acquirer.js';
import {
  FileSettlementLedger,
  MemorySettlementLedger,
  settlementTotals,
} from '../../../src/integrations/acquirer-simulator/settlement-ledger.js';
import { SimulatorAcquirer } from '../../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../../src/integrations/bins/csv-bin-table.js';
import { testPan } from '../../helpers/cards.js';

const bins = CsvBinTable.fromFile(loadConfig({}).binFile);

function authorization(scenario: string, capture: boolean, xId = 'a'.repeat(32)): AcquirerAuthorizationRequest {
  return {
    xId,
    payId: 'p'.repeat(32),
    merchantId: 'shop',
    pan: testPan('40000010', scenario),
    expiryDate: '203012',
    brand: 'VISA',
    value: 10_180,
    currency: 'DKK',
    capture,
  };
}

describe('the acquirer simulator’s settlement ledger', () => {
  // Money: the ledger is what reconciliation compares Kassa's totals against.
  it('records every approved message with its amount, surcharge included, and nothing for a decline', async () => {
    const ledger = new MemorySettlementLedger();
    const acquirer = new SimulatorAcquirer(bins, ledger, () => new Date('2026-11-22T10:00:00Z'));
    await acquirer.authorize(authorization('1000', false));
    await acquirer.authorize({ ...authorization('1100', true), xId: 'd'.repeat(32), payId: 'q'.repeat(32) });
    const followUp = { authorizationXId: 'a'.repeat(32), payId: 'p'.repeat(32), merchantId: 'shop', currency: 'DKK' };
    await acquirer.capture({ ...followUp, xId: 'c1', value: 6_000 });
    await acquirer.capture({ ...followUp, xId: 'c2', value: 4_180 });
    await acquirer.refund({ ...followUp, xId: 'r1', value: 1_018 });

    const records = await ledger.records();
    expect(records.map((r) => [r.type, r.xId, r.value])).toEqual([
      ['AUTHORIZATION', 'a'.repeat(32), 10_180],
      ['CAPTURE', 'c1', 6_000],
      ['CAPTURE', 'c2', 4_180],
      ['REFUND', 'r1', 1_018],
    ]);
    expect(records[0]).toMatchObject({ authorizationXId: 'a'.repeat(32), at: '2026-11-22T10:00:00.000Z' });
    const totals = settlementTotals(records).get('p'.repeat(32));
    expect(totals).toMatchObject({ authorized: 10_180, captured: 10_180, refunded: 1_018, reversed: false });
    expect([...(totals?.messagesPerXId.values() ?? [])].every((n) => n === 1)).toBe(true);
  });

  it('a SALE counts as authorized and captured; a REVERSAL marks the authorization released', async () => {
    const ledger = new MemorySettlementLedger();
    const acquirer = new SimulatorAcquirer(bins, ledger);
    await acquirer.authorize(authorization('1000', true));
    await acquirer.authorize({ ...authorization('1000', false), xId: 'b'.repeat(32), payId: 'r'.repeat(32) });
    await acquirer.reverse({
      xId: 'v1',
      authorizationXId: 'b'.repeat(32),
      payId: 'r'.repeat(32),
      merchantId: 'shop',
      value: 10_180,
      currency: 'DKK',
    });
    const totals = settlementTotals(await ledger.records());
    expect(totals.get('p'.repeat(32))).toMatchObject({ authorized: 10_180, captured: 10_180 });
    expect(totals.get('r'.repeat(32))).toMatchObject({ authorized: 10_180, captured: 0, reversed: true });
  });

  it('several simulators (nodes) appending to one file keep every record whole', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kassa-ledger-')), 'settlement.jsonl');
    const nodes = [1, 2, 3].map(() => new SimulatorAcquirer(bins, new FileSettlementLedger(file)));
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        nodes[i % 3]?.authorize({ ...authorization('1000', true), xId: String(i).padStart(32, '0') }),
      ),
    );
    const records = await new FileSettlementLedger(file).records();
    expect(records).toHaveLength(300);
    expect(new Set(records.map((r) => r.xId)).size).toBe(300);
    expect(settlementTotals(records).get('p'.repeat(32))?.captured).toBe(300 * 10_180);
  });

  it('an empty or missing ledger file has no records', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kassa-ledger-')), 'none.jsonl');
    expect(await new FileSettlementLedger(file).records()).toEqual([]);
  });
});

describe('the acquirer simulator: follow-ups idempotent by xId, status lookup, final capture', () => {
  const followUp = { authorizationXId: 'a'.repeat(32), payId: 'p'.repeat(32), merchantId: 'shop', currency: 'DKK' };

  // Money: a repeated xId (Kassa resolving an unknown outcome, or two nodes at once) is booked once.
  it.each([
    ['in memory', () => new MemorySettlementLedger()],
    [
      'in a file shared by nodes',
      () => new FileSettlementLedger(join(mkdtempSync(join(tmpdir(), 'ledger-')), 'l.jsonl')),
    ],
  ])(
    'a repeated xId answers the first result and is booked once (%s), also from a second simulator',
    async (_, make) => {
      const ledger = make();
      const acquirer = new SimulatorAcquirer(bins, ledger);
      await acquirer.authorize(authorization('1000', false));
      const request = { ...followUp, xId: 'c'.repeat(32), value: 4_000 };
      const [first, concurrent] = await Promise.all([acquirer.capture(request), acquirer.capture(request)]);
      const again = await acquirer.capture(request);
      // Another node's simulator over the same ledger (the same acquirer) recognises it too.
      const otherNode = await new SimulatorAcquirer(bins, ledger).capture(request);
      for (const answer of [concurrent, again, otherNode]) expect(answer).toEqual(first);
      expect(first).toMatchObject({ outcome: 'APPROVED', responseCode: '00' });
      const captures = (await ledger.records()).filter((r) => r.type === 'CAPTURE');
      expect(captures.map((r) => r.xId)).toEqual(['c'.repeat(32)]);
      expect(
        settlementTotals(await ledger.records())
          .get('p'.repeat(32))
          ?.messagesPerXId.get('c'.repeat(32)),
      ).toBe(1);
    },
  );

  it('inquire answers the booked result of an xId and undefined for one never received', async () => {
    const ledger = new MemorySettlementLedger();
    const acquirer = new SimulatorAcquirer(bins, ledger);
    await acquirer.authorize(authorization('1000', false));
    const refund = await acquirer.refund({ ...followUp, xId: 'r'.repeat(32), value: 100 });
    expect(await acquirer.inquire('r'.repeat(32))).toEqual(refund);
    expect(await new SimulatorAcquirer(bins, ledger).inquire('r'.repeat(32))).toEqual(refund);
    expect(await acquirer.inquire('n'.repeat(32))).toBeUndefined();
    expect(await acquirer.inquire('a'.repeat(32))).toBeUndefined(); // an authorization is not a follow-up
  });

  // Paygate finishAuth "Y": the final capture releases the rest of the authorization; no capture follows it.
  it('a final capture releases the uncaptured rest; a later capture of that authorization is declined 12', async () => {
    const ledger = new MemorySettlementLedger();
    const acquirer = new SimulatorAcquirer(bins, ledger);
    await acquirer.authorize(authorization('1000', false));
    await acquirer.capture({ ...followUp, xId: 'c1', value: 3_000 });
    await acquirer.capture({ ...followUp, xId: 'c2', value: 1_000, finalCapture: true });
    const late = await acquirer.capture({ ...followUp, xId: 'c3', value: 1_000 });
    expect(late).toMatchObject({ outcome: 'DECLINED', responseCode: '12' });
    expect(await acquirer.capture({ ...followUp, xId: 'c3', value: 1_000 })).toEqual(late);
    expect(settlementTotals(await ledger.records()).get('p'.repeat(32))).toMatchObject({
      authorized: 10_180,
      captured: 4_000,
      released: 6_180,
    });
    expect((await ledger.records()).at(-1)).toMatchObject({ xId: 'c2', finalCapture: true });
  });

  // Issue 12: the in-memory ledger kept every record of the process's life (~400 bytes a payment, without end).
  it('an in-memory ledger keeps its newest records only, within a quarter over its capacity', async () => {
    const ledger = new MemorySettlementLedger(8);
    const acquirer = new SimulatorAcquirer(bins, ledger);
    for (let i = 0; i < 100; i++) {
      await acquirer.authorize({ ...authorization('1000', false), xId: `x${String(i).padStart(31, '0')}` });
      expect((await ledger.records()).length).toBeLessThanOrEqual(10);
    }
    const kept = (await ledger.records()).map((r) => Number(r.xId.slice(1)));
    expect(kept.length).toBeGreaterThanOrEqual(8);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => 100 - kept.length + i));
    expect(await ledger.find(`x${'0'.repeat(31)}`)).toBeUndefined();
    expect(await ledger.find(`x${'99'.padStart(31, '0')}`)).toMatchObject({ type: 'AUTHORIZATION' });
    expect(() => new MemorySettlementLedger(0)).toThrow(RangeError);
  });
});
