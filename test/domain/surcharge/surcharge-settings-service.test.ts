import { beforeEach, describe, expect, it } from 'vitest';
import { KassaError } from '../../../src/domain/errors/error-catalogue.js';
import type { Clock } from '../../../src/domain/ports/clock.js';
import type { Store, SurchargeSettingsRepository } from '../../../src/domain/ports/store.js';
import {
  DEFAULT_SURCHARGE_SETTINGS,
  type FeeRule,
  type SurchargeAuditEntry,
  type SurchargeSettings,
} from '../../../src/domain/surcharge/surcharge-settings.js';
import { SurchargeSettingsService } from '../../../src/domain/surcharge/surcharge-settings-service.js';

/** The surcharge part of the Store port in memory (the Kysely one is tested in test/storage on both dialects). */
class InMemorySurchargeSettings implements SurchargeSettingsRepository {
  readonly settings = new Map<string, SurchargeSettings | undefined>();
  readonly audit: SurchargeAuditEntry[] = [];

  async get(merchantId: string) {
    return this.settings.has(merchantId) ? { settings: this.settings.get(merchantId) } : undefined;
  }
  async set(merchantId: string, settings: SurchargeSettings) {
    if (!this.settings.has(merchantId)) return false;
    this.settings.set(merchantId, structuredClone(settings));
    return true;
  }
  async appendAudit(entry: Omit<SurchargeAuditEntry, 'seq'>) {
    const seq = this.audit.filter((e) => e.merchantId === entry.merchantId).length + 1;
    const stored = structuredClone({ ...entry, seq });
    this.audit.push(stored);
    return stored;
  }
  async listAudit(merchantId: string) {
    return this.audit.filter((e) => e.merchantId === merchantId);
  }
}

function memoryStore(repo: InMemorySurchargeSettings): Store {
  const store = { surchargeSettings: repo } as unknown as Store;
  store.transaction = (work) => work(store);
  return store;
}

const clockAt = (iso: string): Clock & { set(iso: string): void } => {
  let now = new Date(iso);
  return { now: () => now, set: (s) => (now = new Date(s)) };
};

const VISA_COMMERCIAL: FeeRule = { brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 180 };

async function validationFields(work: Promise<unknown>): Promise<string[]> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KassaError);
  expect((error as KassaError).code).toBe('VALIDATION_FAILED');
  return ((error as KassaError).errors ?? []).map((e) => e.field);
}

describe('SurchargeSettingsService', () => {
  let repo: InMemorySurchargeSettings;
  let clock: ReturnType<typeof clockAt>;
  let service: SurchargeSettingsService;

  beforeEach(() => {
    repo = new InMemorySurchargeSettings();
    repo.settings.set('shop', undefined);
    clock = clockAt('2026-11-21T10:00:00.000Z');
    service = new SurchargeSettingsService(memoryStore(repo), clock);
  });

  it('a merchant never configured is disabled with no rules', async () => {
    expect(await service.get('shop')).toEqual(DEFAULT_SURCHARGE_SETTINGS);
    expect(await service.listAudit('shop')).toEqual([]);
  });

  it('enable stores the rules and audits who, when, before and after', async () => {
    const change = await service.enable('shop', [VISA_COMMERCIAL], 'alice@support');
    expect(change.settings).toEqual({ enabled: true, rules: [VISA_COMMERCIAL] });
    expect(await service.get('shop')).toEqual({ enabled: true, rules: [VISA_COMMERCIAL] });
    expect(await service.listAudit('shop')).toEqual([
      {
        merchantId: 'shop',
        seq: 1,
        action: 'ENABLE',
        actor: 'alice@support',
        at: new Date('2026-11-21T10:00:00.000Z'),
        before: DEFAULT_SURCHARGE_SETTINGS,
        after: { enabled: true, rules: [VISA_COMMERCIAL] },
      },
    ]);
  });

  it('disable keeps the rules, stops surcharging and audits the change after the enable', async () => {
    await service.enable('shop', [VISA_COMMERCIAL], 'alice');
    clock.set('2026-11-22T08:30:00.000Z');
    const change = await service.disable('shop', 'bob');
    expect(change.settings).toEqual({ enabled: false, rules: [VISA_COMMERCIAL] });
    expect(change.audit).toMatchObject({
      seq: 2,
      action: 'DISABLE',
      actor: 'bob',
      at: new Date('2026-11-22T08:30:00.000Z'),
      before: { enabled: true, rules: [VISA_COMMERCIAL] },
      after: { enabled: false, rules: [VISA_COMMERCIAL] },
    });
  });

  it('enable replaces the previous rules and the audit shows both', async () => {
    await service.enable('shop', [VISA_COMMERCIAL], 'alice');
    const next: FeeRule = { brand: '*', reason: 'NON_EEA_CARD', fixed: 295, max: 500 };
    const change = await service.enable('shop', [next], 'alice');
    expect(change.audit.before.rules).toEqual([VISA_COMMERCIAL]);
    expect(change.audit.after.rules).toEqual([next]);
  });

  it('stored rules hold only known fields in a fixed order', async () => {
    const rule = { max: 900, fixed: 100, reason: 'NON_EEA_CARD', brand: 'MASTERCARD' } as FeeRule;
    const change = await service.enable('shop', [rule], 'alice');
    expect(Object.keys(change.settings.rules[0] ?? {})).toEqual(['brand', 'reason', 'fixed', 'max']);
  });

  it.each([
    ['enable', (s: SurchargeSettingsService) => s.enable('nobody', [VISA_COMMERCIAL], 'alice')],
    ['disable', (s: SurchargeSettingsService) => s.disable('nobody', 'alice')],
    ['get', (s: SurchargeSettingsService) => s.get('nobody')],
    ['listAudit', (s: SurchargeSettingsService) => s.listAudit('nobody')],
  ])('%s of an unknown merchant is refused with MERCHANT_NOT_FOUND', async (_, call) => {
    await expect(call(service)).rejects.toMatchObject({ code: 'MERCHANT_NOT_FOUND' });
    expect(repo.audit).toEqual([]);
  });

  it.each<[string, unknown, string[]]>([
    ['an unknown brand', [{ brand: 'AMEX', reason: 'COMMERCIAL_CARD', fixed: 1 }], ['rules.0.brand']],
    ['an unknown reason', [{ brand: 'VISA', reason: 'CONSUMER_CARD', fixed: 1 }], ['rules.0.reason']],
    [
      'percentageBps above 10 000',
      [{ brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 10_001 }],
      ['rules.0.percentageBps'],
    ],
    [
      'a negative percentageBps',
      [{ brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: -1 }],
      ['rules.0.percentageBps'],
    ],
    [
      'a fractional percentageBps (1.8 instead of 180)',
      [{ brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 1.8 }],
      ['rules.0.percentageBps'],
    ],
    [
      'a percentage given as text',
      [{ brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: '180' }],
      ['rules.0.percentageBps'],
    ],
    ['a negative fixed fee', [{ brand: 'VISA', reason: 'COMMERCIAL_CARD', fixed: -5 }], ['rules.0.fixed']],
    ['a cap of 0', [{ brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 100, max: 0 }], ['rules.0.max']],
    [
      'a cap below the fixed fee (every fee would be the cap)',
      [{ brand: 'VISA', reason: 'COMMERCIAL_CARD', fixed: 500, max: 100 }],
      ['rules.0.max'],
    ],
    [
      'neither percentageBps nor fixed',
      [{ brand: 'VISA', reason: 'COMMERCIAL_CARD', max: 100 }],
      ['rules.0.percentageBps'],
    ],
    [
      'an unknown field',
      [{ brand: 'VISA', reason: 'COMMERCIAL_CARD', fixed: 1, currency: 'DKK' }],
      ['rules.0.currency'],
    ],
    ['a rule that is not an object', ['brand=VISA'], ['rules.0']],
    [
      'two rules for the same brand and reason',
      [VISA_COMMERCIAL, { ...VISA_COMMERCIAL, percentageBps: 90 }],
      ['rules.1'],
    ],
    ['no rules', [], ['rules']],
    ['rules that are not a list', { brand: 'VISA' }, ['rules']],
  ])(
    'enable with %s is refused with VALIDATION_FAILED naming the field, and changes nothing',
    async (_, rules, fields) => {
      expect(await validationFields(service.enable('shop', rules as FeeRule[], 'alice'))).toEqual(fields);
      expect(await service.get('shop')).toEqual(DEFAULT_SURCHARGE_SETTINGS);
      expect(repo.audit).toEqual([]);
    },
  );

  it('a cap equal to the fixed fee, or above it with a percentage, is allowed', async () => {
    const rules: FeeRule[] = [
      { brand: 'VISA', reason: 'COMMERCIAL_CARD', fixed: 100, max: 100 },
      { brand: 'MASTERCARD', reason: 'COMMERCIAL_CARD', percentageBps: 180, fixed: 50, max: 500 },
    ];
    await expect(service.enable('shop', rules, 'alice')).resolves.toBeDefined();
  });

  it('a brand rule and a * rule for the same reason are both allowed', async () => {
    const star: FeeRule = { brand: '*', reason: 'COMMERCIAL_CARD', percentageBps: 250 };
    await expect(service.enable('shop', [VISA_COMMERCIAL, star], 'alice')).resolves.toBeDefined();
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['longer than 100 characters', 'a'.repeat(101)],
    ['with a newline (log forging)', 'alice\nENABLE by mallory'],
  ])('an actor %s is refused with VALIDATION_FAILED naming actor', async (_, actor) => {
    expect(await validationFields(service.enable('shop', [VISA_COMMERCIAL], actor))).toEqual(['actor']);
    expect(await validationFields(service.disable('shop', actor))).toEqual(['actor']);
    expect(repo.audit).toEqual([]);
  });

  it('an actor of exactly 100 characters is kept whole', async () => {
    const actor = 'x'.repeat(100);
    expect((await service.disable('shop', actor)).audit.actor).toBe(actor);
  });
});
