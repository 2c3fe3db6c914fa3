import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BinRecord, CardBrand } from '../../../src/domain/ports/bin-table.js';
import {
  decideSurcharge,
  findFeeRule,
  type SurchargeInput,
  surchargeFee,
} from '../../../src/domain/surcharge/decide-surcharge.js';
import { EEA_COUNTRIES, isEeaCountry } from '../../../src/domain/surcharge/surcharge-countries.js';
import type { FeeRule, SurchargeSettings } from '../../../src/domain/surcharge/surcharge-settings.js';

// The sandbox BIN table rows of DESIGN.md §6.
const CARDS = {
  visaConsumerDK: { bin: '40000000', brand: 'VISA', product: 'CONSUMER', funding: 'CREDIT', issuerCountry: 'DK' },
  visaConsumerFI: { bin: '40000001', brand: 'VISA', product: 'CONSUMER', funding: 'DEBIT', issuerCountry: 'FI' },
  visaConsumerNO: { bin: '40000002', brand: 'VISA', product: 'CONSUMER', funding: 'CREDIT', issuerCountry: 'NO' },
  visaCommercialDK: { bin: '40000010', brand: 'VISA', product: 'COMMERCIAL', funding: 'CREDIT', issuerCountry: 'DK' },
  visaConsumerUS: { bin: '40000020', brand: 'VISA', product: 'CONSUMER', funding: 'CREDIT', issuerCountry: 'US' },
  visaCommercialUS: { bin: '40000030', brand: 'VISA', product: 'COMMERCIAL', funding: 'CREDIT', issuerCountry: 'US' },
  mcConsumerNO: { bin: '51000000', brand: 'MASTERCARD', product: 'CONSUMER', funding: 'CREDIT', issuerCountry: 'NO' },
  mcCommercialFI: {
    bin: '51000010',
    brand: 'MASTERCARD',
    product: 'COMMERCIAL',
    funding: 'CREDIT',
    issuerCountry: 'FI',
  },
  mcConsumerGB: { bin: '51000020', brand: 'MASTERCARD', product: 'CONSUMER', funding: 'DEBIT', issuerCountry: 'GB' },
} as const satisfies Record<string, BinRecord>;

const VISA_COMMERCIAL: FeeRule = { brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 180 };
const ANY_COMMERCIAL: FeeRule = { brand: '*', reason: 'COMMERCIAL_CARD', percentageBps: 250 };
const ANY_NON_EEA: FeeRule = { brand: '*', reason: 'NON_EEA_CARD', percentageBps: 300, fixed: 100, max: 5_000 };
const MC_NON_EEA: FeeRule = { brand: 'MASTERCARD', reason: 'NON_EEA_CARD', fixed: 295 };

const enabled = (...rules: FeeRule[]): SurchargeSettings => ({ enabled: true, rules });
const ALL_RULES = enabled(VISA_COMMERCIAL, ANY_COMMERCIAL, ANY_NON_EEA, MC_NON_EEA);

function input(overrides: Partial<SurchargeInput> = {}): SurchargeInput {
  return {
    settings: ALL_RULES,
    merchant: { country: 'DK', currency: 'DKK' },
    payment: { value: 10_000, currency: 'DKK' },
    card: CARDS.visaCommercialDK,
    ...overrides,
  };
}

describe('decideSurcharge: NOT_OFFERED reasons (DESIGN.md §7)', () => {
  it.each<[string, Partial<SurchargeInput>, string]>([
    ['no settings (never configured)', { settings: undefined }, 'DISABLED'],
    ['settings disabled, rules kept', { settings: { enabled: false, rules: [VISA_COMMERCIAL] } }, 'DISABLED'],
    [
      'a Swedish merchant',
      { merchant: { country: 'SE', currency: 'SEK' }, payment: { value: 100, currency: 'SEK' } },
      'COUNTRY_NOT_SUPPORTED',
    ],
    [
      'a German merchant',
      { merchant: { country: 'DE', currency: 'EUR' }, payment: { value: 100, currency: 'EUR' } },
      'COUNTRY_NOT_SUPPORTED',
    ],
    ['a payment in EUR for a DKK merchant', { payment: { value: 10_000, currency: 'EUR' } }, 'CURRENCY_NOT_SUPPORTED'],
    ['a BIN not in the BIN table (PSD2 art. 62(4))', { card: undefined }, 'CARD_UNKNOWN'],
    ['a consumer card issued in Denmark', { card: CARDS.visaConsumerDK }, 'CARD_NOT_ELIGIBLE'],
    ['a consumer card issued in Finland', { card: CARDS.visaConsumerFI }, 'CARD_NOT_ELIGIBLE'],
    ['a consumer card issued in Norway (EEA, not EU)', { card: CARDS.mcConsumerNO }, 'CARD_NOT_ELIGIBLE'],
    ['a commercial card without a COMMERCIAL_CARD rule', { settings: enabled(MC_NON_EEA) }, 'CARD_NOT_ELIGIBLE'],
    [
      'a non-EEA Visa card with only a Mastercard NON_EEA_CARD rule',
      { card: CARDS.visaConsumerUS, settings: enabled(MC_NON_EEA) },
      'CARD_NOT_ELIGIBLE',
    ],
    [
      'a rule that prices the amount at 0',
      { settings: enabled({ brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 0 }) },
      'CARD_NOT_ELIGIBLE',
    ],
    [
      'a fee that rounds down to 0 (1 minor unit at 1.80 %)',
      { payment: { value: 1, currency: 'DKK' }, settings: enabled(VISA_COMMERCIAL) },
      'CARD_NOT_ELIGIBLE',
    ],
  ])('%s is NOT_OFFERED with %s', (_, overrides, reason) => {
    expect(decideSurcharge(input(overrides))).toEqual({ status: 'NOT_OFFERED', reason, value: 0 });
  });

  // Order of checks: merchant-level before card-level; each row fails every check after the expected one too.
  it.each<[string, Partial<SurchargeInput>, string]>([
    [
      'disabled before an unsupported country',
      { settings: { enabled: false, rules: [] }, merchant: { country: 'SE', currency: 'DKK' } },
      'DISABLED',
    ],
    ['country before currency', { merchant: { country: 'SE', currency: 'SEK' } }, 'COUNTRY_NOT_SUPPORTED'],
    [
      'currency before an unknown card',
      { payment: { value: 100, currency: 'EUR' }, card: undefined },
      'CURRENCY_NOT_SUPPORTED',
    ],
    ['unknown card before eligibility', { card: undefined, settings: enabled() }, 'CARD_UNKNOWN'],
  ])('check order: %s', (_, overrides, reason) => {
    expect(decideSurcharge(input(overrides)).reason).toBe(reason);
  });
});

describe('decideSurcharge: APPLIED (every rule row)', () => {
  // Guards money: the surcharge added to what the cardholder pays.
  it.each<[string, BinRecord, SurchargeSettings, string, number, FeeRule]>([
    [
      'Visa commercial DK, Visa rule 1.80 %',
      CARDS.visaCommercialDK,
      ALL_RULES,
      'COMMERCIAL_CARD',
      180,
      VISA_COMMERCIAL,
    ],
    [
      'Mastercard commercial FI, * rule 2.50 %',
      CARDS.mcCommercialFI,
      ALL_RULES,
      'COMMERCIAL_CARD',
      250,
      ANY_COMMERCIAL,
    ],
    ['Visa consumer US, * NON_EEA 3.00 % + 1.00', CARDS.visaConsumerUS, ALL_RULES, 'NON_EEA_CARD', 400, ANY_NON_EEA],
    [
      'Mastercard consumer GB (outside the EEA since 2020), Mastercard fixed 2.95',
      CARDS.mcConsumerGB,
      ALL_RULES,
      'NON_EEA_CARD',
      295,
      MC_NON_EEA,
    ],
    [
      'Visa commercial US: COMMERCIAL_CARD wins over NON_EEA_CARD',
      CARDS.visaCommercialUS,
      ALL_RULES,
      'COMMERCIAL_CARD',
      180,
      VISA_COMMERCIAL,
    ],
    [
      'Visa commercial US without a commercial rule falls back to NON_EEA_CARD',
      CARDS.visaCommercialUS,
      enabled(ANY_NON_EEA),
      'NON_EEA_CARD',
      400,
      ANY_NON_EEA,
    ],
  ])('%s', (_, card, settings, reason, value, rule) => {
    expect(decideSurcharge(input({ card, settings }))).toEqual({ status: 'APPLIED', reason, value, rule });
  });

  it.each([
    ['FI', 'EUR'],
    ['NO', 'NOK'],
    ['DK', 'DKK'],
  ])('a %s merchant paid in its currency %s surcharges a commercial card', (country, currency) => {
    const d = decideSurcharge(input({ merchant: { country, currency }, payment: { value: 10_000, currency } }));
    expect(d).toMatchObject({ status: 'APPLIED', reason: 'COMMERCIAL_CARD', value: 180 });
  });
});

describe('findFeeRule: the most specific rule wins', () => {
  const visa: FeeRule = { brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 100 };
  const star: FeeRule = { brand: '*', reason: 'COMMERCIAL_CARD', percentageBps: 200 };
  const starNonEea: FeeRule = { brand: '*', reason: 'NON_EEA_CARD', percentageBps: 300 };

  it.each<[string, FeeRule[], CardBrand, FeeRule | undefined]>([
    ['brand rule over * (brand rule listed last)', [star, visa], 'VISA', visa],
    ['brand rule over * (brand rule listed first)', [visa, star], 'VISA', visa],
    ['* for a brand without its own rule', [visa, star], 'MASTERCARD', star],
    ['nothing for a reason without rules', [starNonEea], 'VISA', undefined],
  ])('%s', (_, rules, brand, expected) => {
    expect(findFeeRule(rules, brand, 'COMMERCIAL_CARD')).toBe(expected);
  });

  it('a 0 % brand rule exempts that brand from a * rule', () => {
    const d = decideSurcharge(
      input({ settings: enabled(star, { brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 0 }) }),
    );
    expect(d).toEqual({ status: 'NOT_OFFERED', reason: 'CARD_NOT_ELIGIBLE', value: 0 });
  });
});

describe('surchargeFee: round half up, fixed part, cap (minor units)', () => {
  // Guards money: each row is an exact fee in minor units.
  it.each<[string, number, Omit<FeeRule, 'brand' | 'reason'>, number]>([
    ['1.80 % of 100.00', 10_000, { percentageBps: 180 }, 180],
    ['exactly .5 rounds up: 1.50 % of 1.00 = 1.5 → 2', 100, { percentageBps: 150 }, 2],
    ['above .5 rounds up: 1.50 % of 3.30 = 4.95 → 5', 330, { percentageBps: 150 }, 5],
    ['below .5 rounds down: 2.50 % of 3.30 = 8.25 → 8', 330, { percentageBps: 250 }, 8],
    ['exactly .5 rounds up: 0.50 % of 1.00 = 0.5 → 1', 100, { percentageBps: 50 }, 1],
    ['just below .5 rounds down: 0.49 % of 1.00 = 0.49 → 0', 100, { percentageBps: 49 }, 0],
    ['just above .5 rounds up: 0.51 % of 1.00 = 0.51 → 1', 100, { percentageBps: 51 }, 1],
    ['1.99 % of 12 345 = 245.6655 → 246', 12_345, { percentageBps: 199 }, 246],
    ['2.50 % of 1 = 0.025 → 0', 1, { percentageBps: 250 }, 0],
    ['2.50 % of 20 = 0.5 → 1', 20, { percentageBps: 250 }, 1],
    ['100 % of the amount', 7_777, { percentageBps: 10_000 }, 7_777],
    ['fixed only', 10_000, { fixed: 295 }, 295],
    ['percentage + fixed: 3 % of 100.00 + 1.00', 10_000, { percentageBps: 300, fixed: 100 }, 400],
    ['percentage + fixed, rounding first: 1.5 % of 1.01 = 1.515 → 2, + 10', 101, { percentageBps: 150, fixed: 10 }, 12],
    ['cap below the percentage: 3 % of 1 000.00 capped at 5.00', 100_000, { percentageBps: 300, max: 500 }, 500],
    ['cap applies to fixed + percentage together', 10_000, { percentageBps: 300, fixed: 100, max: 350 }, 350],
    ['cap above the fee changes nothing', 10_000, { percentageBps: 300, max: 1_000 }, 300],
    ['cap equal to the fee', 10_000, { percentageBps: 300, max: 300 }, 300],
    ['largest amount at 100 % stays exact', 99_999_999_999, { percentageBps: 10_000 }, 99_999_999_999],
    ['largest amount at 1.23 % (beyond float-exact products)', 99_999_999_999, { percentageBps: 123 }, 1_230_000_000],
  ])('%s', (_, value, rule, fee) => {
    expect(surchargeFee(value, { brand: '*', reason: 'COMMERCIAL_CARD', ...rule })).toBe(fee);
  });

  it.each([-1, 1.5, Number.NaN, 2 ** 53])('a merchant amount of %s is refused with RangeError', (value) => {
    expect(() => surchargeFee(value, ANY_COMMERCIAL)).toThrow(RangeError);
  });

  it('decideSurcharge refuses a non-positive payment amount (validated upstream) with RangeError', () => {
    expect(() => decideSurcharge(input({ payment: { value: 0, currency: 'DKK' } }))).toThrow(RangeError);
  });
});

describe('EEA_COUNTRIES', () => {
  it('holds the EU 27, Iceland, Liechtenstein and Norway, and not the United Kingdom or Switzerland', () => {
    for (const c of ['DK', 'FI', 'SE', 'DE', 'GR', 'HR', 'IS', 'LI', 'NO']) expect(isEeaCountry(c)).toBe(true);
    for (const c of ['GB', 'CH', 'US', 'FO', 'GL', 'EL']) expect(isEeaCountry(c)).toBe(false);
    expect([...EEA_COUNTRIES].filter((c) => !['GF', 'GP', 'MQ', 'RE', 'YT', 'MF', 'AX'].includes(c))).toHaveLength(30);
  });
});

describe('decideSurcharge properties', () => {
  const brand = fc.constantFrom<FeeRule['brand']>('VISA', 'MASTERCARD', '*');
  const reason = fc.constantFrom<FeeRule['reason']>('COMMERCIAL_CARD', 'NON_EEA_CARD');
  const minor = fc.integer({ min: 0, max: 99_999_999_999 });
  const rule: fc.Arbitrary<FeeRule> = fc
    .record(
      {
        brand,
        reason,
        percentageBps: fc.integer({ min: 0, max: 10_000 }),
        fixed: minor,
        max: fc.integer({ min: 1, max: 99_999_999_999 }),
      },
      { requiredKeys: ['brand', 'reason'] },
    )
    .filter((r) => r.percentageBps !== undefined || r.fixed !== undefined);
  const card: fc.Arbitrary<BinRecord | undefined> = fc.option(
    fc.record({
      bin: fc.constant('40000000'),
      brand: fc.constantFrom<CardBrand>('VISA', 'MASTERCARD'),
      product: fc.constantFrom('CONSUMER', 'COMMERCIAL'),
      funding: fc.constantFrom('CREDIT', 'DEBIT', 'PREPAID'),
      issuerCountry: fc.constantFrom('DK', 'FI', 'NO', 'SE', 'US', 'GB', 'CH', 'RE'),
    }),
    { nil: undefined },
  );
  const surchargeInput: fc.Arbitrary<SurchargeInput> = fc.record({
    settings: fc.option(fc.record({ enabled: fc.boolean(), rules: fc.array(rule, { maxLength: 6 }) }), {
      nil: undefined,
    }),
    merchant: fc.record({ country: fc.constantFrom('DK', 'FI', 'NO', 'SE'), currency: fc.constantFrom('DKK', 'EUR') }),
    payment: fc.record({ value: fc.integer({ min: 1, max: 99_999_999_999 }), currency: fc.constantFrom('DKK', 'EUR') }),
    card,
  });

  // Guards money: a surcharge is never negative, never above the merchant's declared cap, and 0 exactly when
  // nothing is offered (the cardholder never sees a 0 fee line).
  it('the fee is a non-negative integer, never above the rule max, and 0 iff NOT_OFFERED', () => {
    fc.assert(
      fc.property(surchargeInput, (i) => {
        const d = decideSurcharge(i);
        expect(Number.isSafeInteger(d.value)).toBe(true);
        expect(d.value).toBeGreaterThanOrEqual(0);
        expect(d.value === 0).toBe(d.status === 'NOT_OFFERED');
        if (d.status === 'APPLIED') {
          if (d.rule.max !== undefined) expect(d.value).toBeLessThanOrEqual(d.rule.max);
          expect(i.settings?.rules).toContain(d.rule);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  // PSD2 art. 62(4): a consumer card issued in the EEA, or a card not in the BIN table, is never surcharged.
  it('a consumer EEA card or an unknown card is never surcharged', () => {
    fc.assert(
      fc.property(surchargeInput, (i) => {
        fc.pre(!i.card || (i.card.product === 'CONSUMER' && isEeaCountry(i.card.issuerCountry)));
        expect(decideSurcharge(i).status).toBe('NOT_OFFERED');
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('docs/surcharge.md worked example', () => {
  const settings = enabled(
    { brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 180 },
    { brand: '*', reason: 'COMMERCIAL_CARD', percentageBps: 250 },
    { brand: '*', reason: 'NON_EEA_CARD', percentageBps: 300, fixed: 100, max: 5000 },
  );
  // Guards money: the figures merchants read in the docs are the figures Kassa charges.
  it.each<[string, BinRecord, number, string, number]>([
    ['Visa commercial DK', CARDS.visaCommercialDK, 123_456, 'APPLIED', 2222],
    ['Mastercard commercial FI', CARDS.mcCommercialFI, 123_456, 'APPLIED', 3086],
    ['Visa consumer US', CARDS.visaConsumerUS, 123_456, 'APPLIED', 3804],
    ['Mastercard consumer NO', CARDS.mcConsumerNO, 123_456, 'NOT_OFFERED', 0],
    ['Visa consumer US (capped)', CARDS.visaConsumerUS, 200_000, 'APPLIED', 5000],
  ])('%s on %i minor units is %s with fee %i', (_, card, value, status, fee) => {
    const d = decideSurcharge(input({ settings, card, payment: { value, currency: 'DKK' } }));
    expect([d.status, d.value]).toEqual([status, fee]);
  });
});
