import { describe, expect, it } from 'vitest';
import { consentCovers, consentedCardOf, reviewDigest } from '../../../src/domain/surcharge/surcharge-consent.js';

const payment = {
  payId: 'a'.repeat(32),
  value: 10_000,
  currency: 'DKK',
  surcharge: { value: 180 },
  card: { brand: 'VISA', last4: '0001', fingerprint: 'fp-visa' },
};
const consent = {
  value: 10_000,
  surchargeValue: 180,
  totalValue: 10_180,
  currency: 'DKK',
  card: { brand: 'VISA', last4: '0001', fingerprint: 'fp-visa' },
};

const { card: _card, ...legacy } = consent;

describe('review digest', () => {
  it.each([
    ['another card', { card: { ...payment.card, fingerprint: 'fp-mc' } }],
    ['another fee', { surcharge: { value: 0 } }],
    ['another amount', { value: 10_001 }],
    ['another payment', { payId: 'b'.repeat(32) }],
    ['no card', { card: undefined }],
  ])('changes with %s', (_name, change) => {
    expect(reviewDigest({ ...payment, ...change })).not.toBe(reviewDigest(payment));
  });
  it('is the same for the same card and amounts', () => {
    expect(reviewDigest({ ...payment })).toBe(reviewDigest(payment));
  });
});

// Money guard: the authorization goes on only with the card and amounts the cardholder confirmed.
describe('consentCovers', () => {
  it.each([
    ['the consented card and amounts', consent, 'fp-visa', true],
    ['another card', consent, 'fp-mc', false],
    ['no consent', undefined, 'fp-visa', false],
    ['a consent naming no card', { ...consent, card: undefined }, 'fp-visa', false],
    ['another fee', { ...consent, surchargeValue: 0, totalValue: 10_000 }, 'fp-visa', false],
    ['another total', { ...consent, totalValue: 10_000 }, 'fp-visa', false],
    ['another currency', { ...consent, currency: 'EUR' }, 'fp-visa', false],
    // Stored by the release before consents named their card (a rolling upgrade): the card of the payment row.
    ['an earlier release’s consent, for the row’s card', legacy, 'fp-visa', true],
    ['an earlier release’s consent, for another vaulted card', legacy, 'fp-mc', false],
    ['an earlier release’s consent, for other amounts', { ...legacy, totalValue: 10_000 }, 'fp-visa', false],
  ] as const)('%s → %s', (_name, c, fingerprint, covers) => {
    expect(consentCovers(c, payment, fingerprint)).toBe(covers);
  });

  it('reads the card of a stored consent only when it is well formed', () => {
    expect(consentedCardOf(consent)).toEqual(consent.card);
    expect(consentedCardOf({ ...consent, card: { brand: 'VISA' } })).toBeUndefined();
    expect(consentedCardOf(undefined)).toBeUndefined();
  });
});
