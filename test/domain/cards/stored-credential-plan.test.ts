import { describe, expect, it } from 'vitest';
import type { CredentialOnFile } from '../../../src/domain/cards/credential-on-file.js';
import { pseudoCardNumber, pseudoCardNumberKey } from '../../../src/domain/cards/pseudo-card-number.js';
import type { StoredCardLookup } from '../../../src/domain/cards/stored-card-service.js';
import {
  planStoredCredential,
  type StoredCredentialRequest,
} from '../../../src/domain/cards/stored-credential-plan.js';
import type { StoredCard } from '../../../src/domain/ports/stored-card-vault.js';
import { testPan } from '../../helpers/cards.js';

const PAN = testPan('40000000', '1000');
const PSEUDO = pseudoCardNumber(pseudoCardNumberKey('k'.repeat(32)), 'shop', PAN);
const DELETED_PSEUDO = pseudoCardNumber(
  pseudoCardNumberKey('k'.repeat(32)),
  'shop',
  testPan('40000000', '1000', '999'),
);

const stored: StoredCard = {
  merchantId: 'shop',
  pseudoCardNumber: PSEUDO,
  fingerprint: 'f'.repeat(64),
  status: 'ACTIVE',
  brand: 'VISA',
  bin: PAN.slice(0, 8),
  last4: PAN.slice(-4),
  expiryDate: '203012',
  credentialType: 'RECURRING',
  schemeReferenceId: '123456789012345',
  initialPayId: 'a'.repeat(32),
  createdAt: new Date(),
  updatedAt: new Date(),
};

async function lookup(merchantId: string, pseudo: string): Promise<StoredCardLookup> {
  if (merchantId === 'shop' && pseudo === PSEUDO) {
    return { kind: 'ACTIVE', stored, card: { number: PAN, expiryDate: '203012', cardholderName: 'Stored Name' } };
  }
  if (merchantId === 'shop' && pseudo === DELETED_PSEUDO)
    return { kind: 'DELETED', stored: { ...stored, status: 'DELETED' } };
  return { kind: 'UNKNOWN' };
}

const MIT: CredentialOnFile = { type: 'RECURRING', initialPayment: false };
const ONE_CLICK: CredentialOnFile = { type: 'UNSCHEDULED', initialPayment: false, unscheduled: { subType: 'CIT' } };

function request(overrides: Partial<StoredCredentialRequest>): StoredCredentialRequest {
  return { merchantId: 'shop', integrationType: 'DIRECT', hasDeviceData: false, now: new Date(), ...overrides };
}

describe('planStoredCredential', () => {
  it('a payment without credentialOnFile is an ordinary payment', async () => {
    expect(await planStoredCredential(request({ card: { number: PAN, expiryDate: '203012' } }), lookup)).toEqual({
      ok: true,
      plan: { kind: 'NONE' },
    });
  });

  it('an initial payment keeps the real card and tells the acquirer CIT INITIAL', async () => {
    const cof: CredentialOnFile = { type: 'RECURRING', initialPayment: true };
    const result = await planStoredCredential(
      request({ credentialOnFile: cof, card: { number: PAN, expiryDate: '203012' } }),
      lookup,
    );
    expect(result).toEqual({
      ok: true,
      plan: {
        kind: 'INITIAL',
        credentialOnFile: cof,
        indicator: { type: 'RECURRING', initiator: 'CARDHOLDER', sequence: 'INITIAL' },
      },
    });
  });

  it('an MIT takes number and expiry from the vault and carries the initial schemeReferenceId', async () => {
    const result = await planStoredCredential(
      request({ credentialOnFile: MIT, card: { number: PSEUDO, expiryDate: '203012', cardholderName: 'Karen' } }),
      lookup,
    );
    expect(result).toMatchObject({
      ok: true,
      plan: {
        kind: 'SUBSEQUENT',
        use: 'MIT',
        card: { number: PAN, expiryDate: '203012', cardholderName: 'Karen' },
        indicator: { initiator: 'MERCHANT', sequence: 'SUBSEQUENT', schemeReferenceId: '123456789012345' },
      },
    });
  });

  it('a one-click CIT is cardholder-initiated and needs browserInfo or sdkInfo', async () => {
    const card = { number: PSEUDO, expiryDate: '203012' };
    expect(await planStoredCredential(request({ credentialOnFile: ONE_CLICK, card }), lookup)).toEqual({
      ok: false,
      errors: [{ field: 'browserInfo', message: expect.any(String) }],
    });
    expect(
      await planStoredCredential(request({ credentialOnFile: ONE_CLICK, card, hasDeviceData: true }), lookup),
    ).toMatchObject({
      ok: true,
      plan: { kind: 'SUBSEQUENT', use: 'ONE_CLICK', indicator: { initiator: 'CARDHOLDER' } },
    });
  });

  // Guards tenancy: another merchant's token finds nothing and pays nothing.
  it.each([
    ['another merchant', 'other-shop', PSEUDO, '20050001'],
    ['an unknown pseudo card number', 'shop', `0${'1'.repeat(15)}`, '20050001'],
    ['a deleted card', 'shop', DELETED_PSEUDO, '20050002'],
  ])('%s makes the payment UNUSABLE with %s', async (_name, merchantId, number, code) => {
    const result = await planStoredCredential(
      request({ merchantId, credentialOnFile: MIT, card: { number, expiryDate: '203012' } }),
      lookup,
    );
    expect(result).toMatchObject({ ok: true, plan: { kind: 'UNUSABLE', responseCode: code } });
  });

  it.each<[string, Partial<StoredCredentialRequest>, string]>([
    [
      'a pseudo card number without credentialOnFile',
      { card: { number: PSEUDO, expiryDate: '203012' } },
      'credentialOnFile',
    ],
    [
      'an initial payment with a pseudo card number',
      { credentialOnFile: { type: 'RECURRING', initialPayment: true }, card: { number: PSEUDO, expiryDate: '203012' } },
      'paymentMethods.card.number',
    ],
    [
      'an MIT with a real card number',
      { credentialOnFile: MIT, card: { number: PAN, expiryDate: '203012' } },
      'paymentMethods.card.number',
    ],
    [
      'an MIT on a HOSTED payment',
      { credentialOnFile: MIT, integrationType: 'HOSTED' },
      'paymentMethods.integrationType',
    ],
    [
      'an UNSCHEDULED follow-on without subType',
      { credentialOnFile: { type: 'UNSCHEDULED', initialPayment: false } },
      'credentialOnFile.unscheduled.subType',
    ],
  ])('%s is refused naming %s', async (_name, overrides, field) => {
    const result = await planStoredCredential(request(overrides), lookup);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.field)).toEqual([field]);
  });
});
