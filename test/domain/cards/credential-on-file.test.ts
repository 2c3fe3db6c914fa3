import { describe, expect, it } from 'vitest';
import { type CredentialOnFile, classifyCredentialOnFile } from '../../../src/domain/cards/credential-on-file.js';

const NOW = new Date('2026-11-27T23:30:00Z');

describe('classifyCredentialOnFile', () => {
  it.each<[CredentialOnFile, string]>([
    [{ type: 'RECURRING', initialPayment: true }, 'INITIAL'],
    [{ type: 'UNSCHEDULED', initialPayment: true }, 'INITIAL'],
    [{ type: 'INSTALLMENTS', initialPayment: true, installments: { total: 3 } }, 'INITIAL'],
    [{ type: 'RECURRING', initialPayment: false }, 'MIT'],
    [{ type: 'RECURRING' }, 'MIT'],
    [{ type: 'INSTALLMENTS', initialPayment: false, installments: { total: 3, curIdx: 2 } }, 'MIT'],
    [{ type: 'UNSCHEDULED', initialPayment: false, unscheduled: { subType: 'MIT' } }, 'MIT'],
    [{ type: 'UNSCHEDULED', initialPayment: false, unscheduled: { subType: 'CIT' } }, 'ONE_CLICK'],
  ])('%j is %s', (cof, use) => {
    expect(classifyCredentialOnFile(cof, NOW)).toEqual({ ok: true, use });
  });

  it('a subsequent UNSCHEDULED payment without subType is refused, naming credentialOnFile.unscheduled.subType', () => {
    const result = classifyCredentialOnFile({ type: 'UNSCHEDULED', initialPayment: false }, NOW);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((p) => p.field)).toEqual(['credentialOnFile.unscheduled.subType']);
  });

  it.each([undefined, 1])(
    'an initial INSTALLMENTS payment with total %s is refused (EMV purchaseInstalData > 1)',
    (total) => {
      const result = classifyCredentialOnFile(
        {
          type: 'INSTALLMENTS',
          initialPayment: true,
          ...(total !== undefined && { installments: { total } }),
        },
        NOW,
      );
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.problems.map((p) => p.field)).toEqual(['credentialOnFile.installments.total']);
    },
  );

  it.each<[string, CredentialOnFile, string]>([
    [
      'an instalment past the agreed number',
      { type: 'INSTALLMENTS', initialPayment: false, installments: { total: 3, curIdx: 4 } },
      'credentialOnFile.installments.curIdx',
    ],
    [
      'an initial payment whose first instalment is past the agreed number',
      { type: 'INSTALLMENTS', initialPayment: true, installments: { total: 2, curIdx: 3 } },
      'credentialOnFile.installments.curIdx',
    ],
    [
      'an initial payment of a recurring agreement that ended yesterday',
      { type: 'RECURRING', initialPayment: true, recurring: { frequency: 'MONTHLY', expiryDate: '2026-11-26' } },
      'credentialOnFile.recurring.expiryDate',
    ],
    [
      'a MIT of a recurring agreement that ended',
      { type: 'RECURRING', initialPayment: false, recurring: { expiryDate: '2025-01-31' } },
      'credentialOnFile.recurring.expiryDate',
    ],
    [
      'an instalment after the instalments’ end date',
      { type: 'INSTALLMENTS', initialPayment: false, installments: { total: 3, curIdx: 2, expiryDate: '2026-10-31' } },
      'credentialOnFile.installments.expiryDate',
    ],
  ])('%s is refused, naming the field (EMV 3DS purchaseInstalData, recurringExpiry)', (_, cof, field) => {
    const result = classifyCredentialOnFile(cof, NOW);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((p) => p.field)).toEqual([field]);
  });

  it('the agreement may end today (UTC) and the last instalment is the agreed number', () => {
    expect(
      classifyCredentialOnFile(
        { type: 'RECURRING', initialPayment: false, recurring: { expiryDate: '2026-11-27' } },
        NOW,
      ),
    ).toEqual({ ok: true, use: 'MIT' });
    expect(
      classifyCredentialOnFile(
        { type: 'INSTALLMENTS', initialPayment: false, installments: { total: 3, curIdx: 3 } },
        NOW,
      ),
    ).toEqual({ ok: true, use: 'MIT' });
  });
});
