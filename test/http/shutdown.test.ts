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
    // The acquirer holds the authorization until the test lets it go, after close() has begun: no real-time sleep.
    let entered: () => void = () => {};
    const inAcquirer = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    class GatedAcquirer extends SimulatorAcquirer {
      override async authorize(request: Parameters<Acquirer['authorize']>[0]) {
        entered();
        await released;
        return super.authorize(request);
      }
    }
    const gatedAcquirer = new GatedAcquirer(CsvBinTable.fromFile(loadConfig({}).binFile));
    const t = await startTestKassa('sqlite', { acquirer: gatedAcquirer });
    const merchant = await t.createMerchant();
    const body = directPayment(testPan('40000000', '1000'));
    const paying = t.call('POST', '/api/v1/payments', { auth: merchant, json: body });
    await inAcquirer;
    const closing = t.kassa.close();
    await new Promise((resolve) => setImmediate(resolve)); // close() is under way: the server stops accepting
    release();
    const res = await paying;
    await closing;
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('OK');
    expect(t.logs()).not.toContain('driver has already been destroyed');
    await t.database.drop();
  });
});
