import { describe, expect, it } from 'vitest';
import { type CredentialOnFile, classifyCredentialOnFile } from '../../../src/domain/cards/credential-on-file.js';

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
    expect(classifyCredentialOnFile(cof)).toEqual({ ok: true, use });
  });

  it('a subsequent UNSCHEDULED payment without subType is refused, naming credentialOnFile.unscheduled.subType', () => {
    const result = classifyCredentialOnFile({ type: 'UNSCHEDULED', initialPayment: false });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((p) => p.field)).toEqual(['credentialOnFile.unscheduled.subType']);
  });

  it.each([undefined, 1])(
    'an initial INSTALLMENTS payment with total %s is refused (EMV purchaseInstalData > 1)',
    (total) => {
      const result = classifyCredentialOnFile({
        type: 'INSTALLMENTS',
        initialPayment: true,
        ...(total !== undefined && { installments: { total } }),
      });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.problems.map((p) => p.field)).toEqual(['credentialOnFile.installments.total']);
    },
  );
});
