import { describe, expect, it } from 'vitest';
import type { CredentialOnFile } from '../../../src/domain/cards/credential-on-file.js';
import { storedCredentialAReqFields } from '../../../src/domain/threeds/stored-credential-fields.js';
import { buildAReq } from '../../../src/domain/threeds/three-ds-server.js';
import { authenticateInput } from './three-ds-fixtures.js';

const CARD_EXPIRY = '202812';

describe('storedCredentialAReqFields (EMV 3DS threeDSRequestorAuthenticationInd and recurring data)', () => {
  it.each<[string, CredentialOnFile | undefined, Record<string, string>]>([
    ['no credentialOnFile', undefined, { threeDSRequestorAuthenticationInd: '01' }],
    [
      'a one-click payment with a stored card',
      { type: 'UNSCHEDULED', initialPayment: false, unscheduled: { subType: 'CIT' } },
      { threeDSRequestorAuthenticationInd: '01' },
    ],
    [
      'an initial UNSCHEDULED payment (card saved for later)',
      { type: 'UNSCHEDULED', initialPayment: true },
      { threeDSRequestorAuthenticationInd: '04' },
    ],
    [
      'an initial monthly subscription with an end date',
      { type: 'RECURRING', initialPayment: true, recurring: { frequency: 'MONTHLY', expiryDate: '2027-11-30' } },
      { threeDSRequestorAuthenticationInd: '02', recurringExpiry: '20271130', recurringFrequency: '28' },
    ],
    [
      'an initial yearly subscription without an end date (expiry = the card’s last valid day)',
      { type: 'RECURRING', initialPayment: true, recurring: { frequency: 'YEARLY' } },
      { threeDSRequestorAuthenticationInd: '02', recurringExpiry: '20281231', recurringFrequency: '365' },
    ],
    [
      'an initial subscription without frequency (1 day, the least restrictive value)',
      { type: 'RECURRING', initialPayment: true },
      { threeDSRequestorAuthenticationInd: '02', recurringExpiry: '20281231', recurringFrequency: '1' },
    ],
    [
      'an initial plan of 3 monthly instalments',
      {
        type: 'INSTALLMENTS',
        initialPayment: true,
        installments: { total: 3, curIdx: 1, frequency: 'MONTHLY', expiryDate: '2027-02-28' },
      },
      {
        threeDSRequestorAuthenticationInd: '03',
        recurringExpiry: '20270228',
        recurringFrequency: '28',
        purchaseInstalData: '3',
      },
    ],
    [
      'a frequency given as digits (days)',
      { type: 'RECURRING', initialPayment: true, recurring: { frequency: '14' } },
      { threeDSRequestorAuthenticationInd: '02', recurringExpiry: '20281231', recurringFrequency: '14' },
    ],
  ])('%s', (_name, cof, expected) => {
    expect(storedCredentialAReqFields(cof, CARD_EXPIRY)).toEqual(expected);
  });

  it('a February card expiry ends on the month’s last day, leap years included', () => {
    expect(storedCredentialAReqFields({ type: 'RECURRING', initialPayment: true }, '202802').recurringExpiry).toBe(
      '20280229',
    );
  });
});

describe('buildAReq with a stored credential', () => {
  const base = {
    ...authenticateInput('4000000000010001', 'BROWSER'),
    messageVersion: '2.2.0' as const,
    now: new Date(),
  };

  it('a payment without credentialOnFile is a payment transaction (01) without recurring data', () => {
    const areq = buildAReq(base);
    expect(areq.threeDSRequestorAuthenticationInd).toBe('01');
    expect(areq).not.toHaveProperty('recurringExpiry');
    expect(areq).not.toHaveProperty('purchaseInstalData');
  });

  it('an initial subscription payment sends 02 with recurringExpiry and recurringFrequency', () => {
    const areq = buildAReq({
      ...base,
      credentialOnFile: {
        type: 'RECURRING',
        initialPayment: true,
        recurring: { frequency: 'WEEKLY', expiryDate: '2027-06-01' },
      },
    });
    expect(areq).toMatchObject({
      threeDSRequestorAuthenticationInd: '02',
      recurringExpiry: '20270601',
      recurringFrequency: '7',
    });
  });

  it('an initial instalment payment sends 03 with purchaseInstalData', () => {
    const areq = buildAReq({
      ...base,
      credentialOnFile: {
        type: 'INSTALLMENTS',
        initialPayment: true,
        installments: { total: 4, frequency: 'MONTHLY' },
      },
    });
    expect(areq).toMatchObject({
      threeDSRequestorAuthenticationInd: '03',
      purchaseInstalData: '4',
      recurringFrequency: '28',
    });
  });
});
