import { describe, expect, it } from 'vitest';
import {
  findSimulatorCardRange,
  luhnCheckDigit,
  SIMULATOR_CARD_RANGES,
  scenarioOf,
  testCardPan,
} from '../../../src/integrations/threeds-simulator/simulator-card-ranges.js';

describe('simulator card ranges', () => {
  it('holds exactly the BIN ranges, schemes and ACS versions of DESIGN.md §6', () => {
    expect(SIMULATOR_CARD_RANGES.map((r) => [r.bin, r.scheme, r.acsMaxVersion, r.hasThreeDSMethod])).toEqual([
      ['40000000', 'VISA', '2.2.0', true],
      ['40000001', 'VISA', '2.1.0', false],
      ['40000002', 'VISA', '2.3.1', true],
      ['40000010', 'VISA', '2.2.0', true],
      ['40000020', 'VISA', '2.2.0', true],
      ['51000000', 'MASTERCARD', '2.2.0', true],
      ['51000010', 'MASTERCARD', '2.2.0', true],
      ['51000020', 'MASTERCARD', '2.2.0', true],
    ]);
  });

  it('builds the example PAN of DESIGN.md §6 with its Luhn check digit', () => {
    expect(testCardPan('40000000', '1000')).toBe('4000000000010001');
  });

  it.each([
    ['4000000000010001', '1000'],
    ['5100001012310053', '1005'],
  ])('reads the scenario of %s from digits 12-15: %s', (pan, scenario) => {
    expect(scenarioOf(pan)).toBe(scenario);
  });

  it.each(['4111111111111111', '5555555555554444', '4000000000010001'])('computes the Luhn digit of %s', (pan) => {
    expect(luhnCheckDigit(pan.slice(0, -1))).toBe(pan.slice(-1));
  });

  it.each([
    ['4000000000010001', '40000000'],
    ['5100002000011003', '51000020'],
    ['4000000300010001', undefined],
    ['4000000', undefined],
    ['40000000abc10001', undefined],
  ])('finds the range of %s by its first 8 digits: %s', (pan, bin) => {
    expect(findSimulatorCardRange(pan)?.bin).toBe(bin);
  });
});
