import { describe, expect, it } from 'vitest';
import { KassaError } from '../../../src/domain/errors/error-catalogue.js';
import {
  describeSurchargeAudit,
  describeSurchargeSettings,
  formatFeeRule,
  parseFeeRule,
} from '../../../src/domain/surcharge/fee-rule-text.js';

function fieldsOf(text: string): string[] {
  try {
    parseFeeRule(text);
  } catch (error) {
    expect(error).toBeInstanceOf(KassaError);
    return ((error as KassaError).errors ?? []).map((e) => e.field);
  }
  throw new Error(`${text} parsed`);
}

describe('parseFeeRule (the CLI --rule notation)', () => {
  it.each([
    [
      'brand=VISA,reason=COMMERCIAL_CARD,percentageBps=180',
      { brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 180 },
    ],
    ['brand=*,reason=NON_EEA_CARD,fixed=295,max=500', { brand: '*', reason: 'NON_EEA_CARD', fixed: 295, max: 500 }],
    [
      ' brand = mastercard , reason = commercial_card , percentageBps = 0 ',
      { brand: 'MASTERCARD', reason: 'COMMERCIAL_CARD', percentageBps: 0 },
    ],
    [
      'max=900,fixed=100,percentageBps=120,reason=NON_EEA_CARD,brand=VISA',
      { brand: 'VISA', reason: 'NON_EEA_CARD', percentageBps: 120, fixed: 100, max: 900 },
    ],
  ])('%s parses', (text, rule) => {
    expect(parseFeeRule(text)).toEqual(rule);
  });

  it.each([
    ['brand=AMEX,reason=COMMERCIAL_CARD,fixed=1', ['brand=AMEX']],
    ['brand=VISA,reason=CORPORATE,fixed=1', ['reason=CORPORATE']],
    ['brand=VISA,reason=COMMERCIAL_CARD,percentageBps=1.8', ['percentageBps=1.8']],
    ['brand=VISA,reason=COMMERCIAL_CARD,percentageBps=-5', ['percentageBps=-5']],
    ['brand=VISA,reason=COMMERCIAL_CARD,percentageBps=20000', ['percentageBps=20000']],
    ['brand=VISA,reason=COMMERCIAL_CARD,fee=10', ['fee=10', 'percentageBps']],
    ['brand=VISA,reason=COMMERCIAL_CARD,fixed', ['fixed']],
    ['brand=VISA,brand=MASTERCARD,reason=COMMERCIAL_CARD,fixed=1', ['brand=MASTERCARD']],
    ['reason=COMMERCIAL_CARD,fixed=1', ['brand']],
    ['brand=VISA,reason=COMMERCIAL_CARD,max=10', ['percentageBps']],
    ['brand=AMEX,reason=COMMERCIAL,percentageBps=1.8', ['percentageBps=1.8', 'brand=AMEX', 'reason=COMMERCIAL']],
  ])('%s is refused naming %j', (text, fields) => {
    expect(fieldsOf(text)).toEqual(fields);
  });

  it('formatFeeRule is the inverse of parseFeeRule', () => {
    const text = 'brand=VISA,reason=NON_EEA_CARD,percentageBps=120,fixed=100,max=900';
    expect(formatFeeRule(parseFeeRule(text))).toBe(text);
  });

  it('describes settings and the audit log for people', () => {
    const rule = parseFeeRule('brand=VISA,reason=COMMERCIAL_CARD,percentageBps=180');
    expect(describeSurchargeSettings({ enabled: false, rules: [] })).toBe('disabled: no fee rules');
    const text = describeSurchargeAudit([
      {
        merchantId: 'm',
        seq: 1,
        action: 'ENABLE',
        actor: 'cli:alice',
        at: new Date('2026-11-21T10:00:00.000Z'),
        before: { enabled: false, rules: [] },
        after: { enabled: true, rules: [rule] },
      },
    ]);
    expect(text).toBe(
      '#1 2026-11-21T10:00:00.000Z ENABLE by cli:alice\n' +
        '    before: disabled: no fee rules\n' +
        '    after:  enabled: brand=VISA,reason=COMMERCIAL_CARD,percentageBps=180',
    );
  });
});
