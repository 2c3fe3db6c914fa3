import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/notifications/webhook-signer.js';

const secret = (n: number) => `whsec_${Buffer.alloc(32, n).toString('base64')}`;
const body = JSON.stringify({ type: 'payment.authorized', payId: 'abc' });

describe('signWebhook (Standard Webhooks)', () => {
  it('signs with the merchant secret alone: one v1 signature that verifies under it only', () => {
    const headers = signWebhook(secret(1), 'msg_1', new Date(), body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret(1)).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret(2)).verify(body, { ...headers })).toThrow();
  });

  it('during a rotation, two space-delimited signatures, the current secret first: either secret verifies, no other', () => {
    const headers = signWebhook(secret(1), 'msg_2', new Date(), body, secret(2));
    const signatures = headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures[0]).toBe(
      signWebhook(secret(1), 'msg_2', new Date(Number(headers['webhook-timestamp']) * 1000), body)['webhook-signature'],
    );
    for (const s of [secret(1), secret(2)])
      expect(new Webhook(s).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret(3)).verify(body, { ...headers })).toThrow();
    // The body is signed byte for byte: a changed body verifies under neither.
    expect(() => new Webhook(secret(2)).verify(`${body} `, { ...headers })).toThrow();
  });
});
