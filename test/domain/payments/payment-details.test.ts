import { describe, expect, it } from 'vitest';
import type { Merchant } from '../../../src/domain/merchants/merchant.js';
import { paymentDetailsJson, toPaymentDetails } from '../../../src/domain/payments/payment-details.js';
import { enqueuePaymentEvent } from '../../../src/domain/payments/payment-events.js';
import type { OutboxEvent, Store } from '../../../src/domain/ports/store.js';
import { paymentFixture } from './payment-fixture.js';

const BASE = 'https://kassa.example';

describe('paymentDetailsJson', () => {
  it('is toPaymentDetails and its JSON text, made once per Payment value', () => {
    const payment = paymentFixture({ refNr: 'inv-1', metadata: { cart: '42' } });
    const first = paymentDetailsJson(payment, BASE);
    expect(first.details).toEqual(toPaymentDetails(payment, BASE));
    expect(first.json).toBe(JSON.stringify(toPaymentDetails(payment, BASE)));
    // The same value: the same details and text, not made again.
    expect(paymentDetailsJson(payment, BASE)).toBe(first);
  });

  it('a changed payment is a new value with its own text; another base URL is made anew', () => {
    const payment = paymentFixture();
    const before = paymentDetailsJson(payment, BASE);
    const captured = { ...payment, status: 'OK' as const, capturedValue: payment.value };
    const after = paymentDetailsJson(captured, BASE);
    expect(JSON.parse(after.json)).toMatchObject({ status: 'OK', amount: { capturedValue: payment.value } });
    expect(JSON.parse(before.json)).toMatchObject({ status: 'AUTHORIZED', amount: { capturedValue: 0 } });
    const other = paymentDetailsJson(payment, 'https://other.example');
    expect(other.details._links.self.href).toBe(`https://other.example/api/v1/payments/getByPayId/${payment.payId}`);
    expect(paymentDetailsJson(payment, BASE).json).toBe(JSON.stringify(toPaymentDetails(payment, BASE)));
  });
});

describe('enqueuePaymentEvent', () => {
  it('writes `type` then the payment details: exactly JSON.stringify({ type, ...details })', async () => {
    const events: OutboxEvent[] = [];
    const tx = { outbox: { enqueue: async (e: OutboxEvent) => void events.push(e) } } as unknown as Store;
    const merchant = { merchantId: 'm1', webhookUrl: 'https://shop.example/hooks' } as Merchant;
    const payment = paymentFixture({ refNr: 'inv-1' });
    const deps = {
      clock: { now: () => new Date('2026-11-21T10:00:00Z') },
      ids: { timeOrderedUuid: () => '0190a0b0-c0d0-7000-8000-000000000001' },
      publicUrl: BASE,
    };
    await enqueuePaymentEvent(tx, deps as never, merchant, payment, 'payment.authorized');
    expect(events).toHaveLength(1);
    const type = 'payment.authorized';
    expect(events[0]?.payload).toBe(JSON.stringify({ type, ...toPaymentDetails(payment, BASE) }));
    expect(events[0]).toMatchObject({
      merchantId: 'm1',
      payId: payment.payId,
      type,
      targetUrl: 'https://shop.example/hooks',
    });
  });
});
