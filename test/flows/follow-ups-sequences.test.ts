import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';
import { applySurcharge, authorizedPayment, type Credentials, followUp } from './follow-ups.helpers.js';

type Step = { kind: 'captures' | 'refunds'; fraction: number };

describe.each(DIALECTS)('property: random follow-up sequences over HTTP and storage (%s)', (dialect) => {
  let t: TestKassa;
  let merchant: Credentials;

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK' });
  });
  afterAll(async () => t?.close());

  // Money: what the API states as binding totals always equals the sum of the stored operations, within bounds.
  it('stated totals equal the sums of the operations and never exceed what was authorized or captured', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 50_000 }),
        fc.array(
          fc.record({
            kind: fc.constantFrom('captures' as const, 'refunds' as const),
            fraction: fc.double({ min: 0, max: 1.1, noNaN: true }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        async (value, surcharge, steps: Step[]) => {
          const p = await authorizedPayment(t, merchant, value);
          await applySurcharge(t, p.payId, surcharge);
          let details = p;
          let changed = false;
          for (const step of steps) {
            const room =
              step.kind === 'captures'
                ? value - details.amount.capturedValue
                : details.amount.capturedValue - details.amount.refundedValue;
            const v = Math.max(1, Math.ceil(room * step.fraction));
            const res = await followUp(t, merchant, p.payId, step.kind, {
              transId: p.transId,
              amount: { value: v, currency: 'DKK' },
            });
            if (v > room) {
              expect(res.status).toBe(409);
              continue;
            }
            if (step.kind === 'refunds' && details.status === 'AUTHORIZED') {
              expect(res.body.code).toBe('PAYMENT_NOT_REFUNDABLE');
              continue;
            }
            expect(res.status).toBe(201);
            details = res.body;
            changed = true;
          }
          const ok = details.operations.filter((o: { status: string }) => o.status === 'OK');
          const sum = (type: string, key: 'amount' | 'totalAmount') =>
            ok
              .filter((o: { type: string }) => o.type === type)
              .reduce((s: number, o: Record<string, { value: number }>) => s + (o[key]?.value ?? 0), 0);
          expect(sum('CAPTURE', 'amount')).toBe(details.amount.capturedValue);
          expect(sum('CAPTURE', 'totalAmount')).toBe(details.totalAmount.capturedValue);
          expect(sum('REFUND', 'amount')).toBe(details.amount.refundedValue);
          expect(sum('REFUND', 'totalAmount')).toBe(details.totalAmount.refundedValue);
          expect(details.surcharge.capturedValue).toBeLessThanOrEqual(surcharge);
          expect(details.surcharge.refundedValue).toBeLessThanOrEqual(details.surcharge.capturedValue);
          expect(details.amount.refundedValue).toBeLessThanOrEqual(details.amount.capturedValue);
          if (details.amount.capturedValue === value) expect(details.surcharge.capturedValue).toBe(surcharge);
          const read = await t.call('GET', `/api/v1/payments/getByPayId/${p.payId}`, { auth: merchant });
          // What the last answer stated is what was stored.
          if (changed) expect(read.body).toEqual(details);
        },
      ),
      { numRuns: 12 },
    );
  });
});
