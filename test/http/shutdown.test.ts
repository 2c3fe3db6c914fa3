import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import type { Acquirer } from '../../src/domain/ports/acquirer.js';
import { SimulatorAcquirer } from '../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../src/integrations/bins/csv-bin-table.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { startTestKassa } from '../helpers/test-kassa.js';

describe('graceful shutdown (DESIGN.md §9)', () => {
  // Money: a payment being authorized when the operator stops Kassa is finished and recorded, not cut off.
  it('close() lets a request being handled finish before the database closes', async () => {
    const simulator = new SimulatorAcquirer(CsvBinTable.fromFile(loadConfig({}).binFile));
    let entered: () => void = () => {};
    const inAcquirer = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const slowAcquirer: Acquirer = {
      ...simulator,
      authorize: async (request) => {
        entered();
        await new Promise((resolve) => setTimeout(resolve, 500));
        return simulator.authorize(request);
      },
      capture: (r) => simulator.capture(r),
      refund: (r) => simulator.refund(r),
      reverse: (r) => simulator.reverse(r),
    };
    const t = await startTestKassa('sqlite', { acquirer: slowAcquirer });
    const merchant = await t.createMerchant();
    const body = directPayment(testPan('40000000', '1000'));
    const paying = t.call('POST', '/api/v1/payments', { auth: merchant, json: body });
    await inAcquirer;
    const closing = t.kassa.close();
    const res = await paying;
    await closing;
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('OK');
    expect(t.logs()).not.toContain('driver has already been destroyed');
    await t.database.drop();
  });
});
