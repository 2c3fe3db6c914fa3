import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { responseCodeFromAcquirer } from '../../../src/domain/payments/response-codes.js';
import type { AcquirerAuthorizationRequest, StoredCredentialIndicator } from '../../../src/domain/ports/acquirer.js';
import { isValidSchemeReferenceId } from '../../../src/integrations/acquirer-simulator/scheme-reference.js';
import { SimulatorAcquirer } from '../../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../../src/integrations/bins/csv-bin-table.js';
import { testPan } from '../../helpers/cards.js';

const bins = CsvBinTable.fromFile(new URL('../../../data/bins.csv', import.meta.url).pathname);
const now = new Date('2026-11-23T10:00:00Z');
const acquirer = new SimulatorAcquirer(bins, undefined, () => now);

function request(pan: string, overrides: Partial<AcquirerAuthorizationRequest> = {}): AcquirerAuthorizationRequest {
  return {
    xId: randomUUID().replaceAll('-', ''),
    payId: randomUUID().replaceAll('-', ''),
    merchantId: 'shop',
    pan,
    expiryDate: '203012',
    brand: pan.startsWith('5') ? 'MASTERCARD' : 'VISA',
    value: 1000,
    currency: 'DKK',
    capture: false,
    ...overrides,
  };
}

const initial: StoredCredentialIndicator = { type: 'RECURRING', initiator: 'CARDHOLDER', sequence: 'INITIAL' };

/** Authorizes an initial CIT and returns the schemeReferenceId the network issued. */
async function initialReference(pan: string): Promise<string> {
  const result = await acquirer.authorize(request(pan, { storedCredential: initial }));
  if (result.outcome !== 'APPROVED' || result.schemeReferenceId === undefined) throw new Error('initial not approved');
  return result.schemeReferenceId;
}

function mit(schemeReferenceId?: string): StoredCredentialIndicator {
  return {
    type: 'RECURRING',
    initiator: 'MERCHANT',
    sequence: 'SUBSEQUENT',
    ...(schemeReferenceId !== undefined && { schemeReferenceId }),
  };
}

describe('SimulatorAcquirer: scheme reference ids', () => {
  it('issues a Visa Transaction Identifier of 15 digits, valid for that card only', async () => {
    const pan = testPan('40000000', '1000');
    const reference = await initialReference(pan);
    expect(reference).toMatch(/^\d{15}$/);
    expect(isValidSchemeReferenceId('VISA', pan, reference)).toBe(true);
    expect(isValidSchemeReferenceId('VISA', testPan('40000000', '1000', '001'), reference)).toBe(false);
  });

  it('issues a Mastercard Trace ID: MCC, Banknet reference, Banknet date MMDD', async () => {
    const pan = testPan('51000000', '1000');
    const reference = await initialReference(pan);
    expect(reference).toMatch(/^MCC[0-9A-Z]{6}1123$/);
    expect(isValidSchemeReferenceId('MASTERCARD', pan, reference)).toBe(true);
  });

  it('two approvals of the same card get different ids', async () => {
    const pan = testPan('40000000', '1000');
    expect(await initialReference(pan)).not.toBe(await initialReference(pan));
  });
});

describe('SimulatorAcquirer: stored credentials', () => {
  // Guards money: an MIT is only honoured with the network id of a real initial payment of the same card.
  it.each([
    ['without a schemeReferenceId', undefined],
    ['with a made-up schemeReferenceId', '123456789012345'],
  ])('refuses a merchant-initiated payment %s with 12 invalid transaction', async (_name, reference) => {
    const result = await acquirer.authorize(request(testPan('40000000', '1000'), { storedCredential: mit(reference) }));
    expect(result).toMatchObject({ outcome: 'DECLINED', responseCode: '12' });
    expect(responseCodeFromAcquirer('12')).toBe('20020012');
  });

  it('refuses an MIT carrying the reference of another card', async () => {
    const reference = await initialReference(testPan('40000000', '1000', '111'));
    const result = await acquirer.authorize(request(testPan('40000000', '1000'), { storedCredential: mit(reference) }));
    expect(result).toMatchObject({ outcome: 'DECLINED', responseCode: '12' });
  });

  it.each(['40000000', '51000000'])('approves an MIT with the initial payment’s reference (BIN %s)', async (bin) => {
    const pan = testPan(bin, '1000');
    const result = await acquirer.authorize(request(pan, { storedCredential: mit(await initialReference(pan)) }));
    expect(result).toMatchObject({ outcome: 'APPROVED', responseCode: '00' });
  });

  it('scenario 1200 approves the initial payment and a one-click CIT but declines every MIT with 05 do not honour', async () => {
    const pan = testPan('40000000', '1200');
    const reference = await initialReference(pan);
    const oneClick = await acquirer.authorize(
      request(pan, { storedCredential: { type: 'UNSCHEDULED', initiator: 'CARDHOLDER', sequence: 'SUBSEQUENT' } }),
    );
    expect(oneClick.outcome).toBe('APPROVED');
    const result = await acquirer.authorize(request(pan, { storedCredential: mit(reference) }));
    expect(result).toMatchObject({ outcome: 'DECLINED', responseCode: '05' });
  });

  it.each([
    ['40000000', 'R1', undefined],
    ['51000000', '05', '21'],
  ])(
    'scenario 1201 (credential closed by the issuer) on BIN %s declines %s (MAC %s) → 20020201',
    async (bin, code, mac) => {
      const pan = testPan(bin, '1201');
      const result = await acquirer.authorize(request(pan, { storedCredential: mit(await initialReference(pan)) }));
      expect(result).toMatchObject({ outcome: 'DECLINED', responseCode: code });
      if (result.outcome !== 'DECLINED') throw new Error('not declined');
      expect(result.merchantAdviceCode).toBe(mac);
      expect(responseCodeFromAcquirer(result.responseCode, result.merchantAdviceCode)).toBe('20020201');
    },
  );

  it('declines a card whose expiry month has passed with 54 expired card, and accepts the current month', async () => {
    const pan = testPan('40000000', '1000');
    const expired = await acquirer.authorize(request(pan, { expiryDate: '202610', storedCredential: mit('x') }));
    expect(expired).toMatchObject({ outcome: 'DECLINED', responseCode: '54' });
    expect(responseCodeFromAcquirer('54')).toBe('20020054');
    expect((await acquirer.authorize(request(pan, { expiryDate: '202611' }))).outcome).toBe('APPROVED');
  });
});
