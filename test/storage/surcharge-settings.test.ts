import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/domain/ports/clock.js';
import type { Store } from '../../src/domain/ports/store.js';
import {
  DEFAULT_SURCHARGE_SETTINGS,
  type FeeRule,
  type SurchargeSettings,
} from '../../src/domain/surcharge/surcharge-settings.js';
import { SurchargeSettingsService } from '../../src/domain/surcharge/surcharge-settings-service.js';
import { migrateToLatest } from '../../src/storage/create-db.js';
import { KyselyStore } from '../../src/storage/kysely-store.js';
import { WebhookSecretBox } from '../../src/storage/webhook-secret-box.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';

const VISA_COMMERCIAL: FeeRule = { brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 180 };
const ANY_NON_EEA: FeeRule = { brand: '*', reason: 'NON_EEA_CARD', percentageBps: 300, fixed: 100, max: 5_000 };

describe.each(DIALECTS)('surcharge settings and audit storage (%s)', (dialect) => {
  let database: FreshDatabase;
  let store: KyselyStore;
  let ticks = 0;
  const clock: Clock = { now: () => new Date(Date.UTC(2026, 10, 21, 10, 0, 0, ticks++)) };
  let merchantCounter = 0;

  async function newMerchant(): Promise<string> {
    const merchantId = `s${++merchantCounter}`;
    await store.merchants.insert({
      merchantId,
      name: merchantId,
      country: 'DK',
      currency: 'DKK',
      sandbox: true,
      webhookSecret: 'whsec_dGVzdA==',
      creationDate: new Date('2026-11-21T09:00:00.000Z'),
    });
    return merchantId;
  }

  beforeAll(async () => {
    database = await freshDatabase(dialect);
    await migrateToLatest(database.db);
    store = new KyselyStore(database.db.kysely, new WebhookSecretBox('surcharge-test-data-key-0123456789abcdef'));
  });
  afterAll(async () => database?.drop());

  it('the migrations create surcharge_audit', async () => {
    const tables = await database.db.kysely.introspection.getTables();
    expect(tables.map((t) => t.name)).toContain('surcharge_audit');
  });

  it('a new merchant has no settings; an unknown merchant has no row at all', async () => {
    const id = await newMerchant();
    expect(await store.surchargeSettings.get(id)).toEqual({ settings: undefined });
    expect(await store.surchargeSettings.get('nobody')).toBeUndefined();
    expect(await store.surchargeSettings.set('nobody', DEFAULT_SURCHARGE_SETTINGS)).toBe(false);
  });

  it('settings round-trip through merchant.surcharge as JSON', async () => {
    const id = await newMerchant();
    const settings: SurchargeSettings = { enabled: true, rules: [VISA_COMMERCIAL, ANY_NON_EEA] };
    expect(await store.surchargeSettings.set(id, settings)).toBe(true);
    expect(await store.surchargeSettings.get(id)).toEqual({ settings });
    expect(await store.surchargeSettings.get(id, { forUpdate: true })).toEqual({ settings });
    const row = await database.db.kysely
      .selectFrom('merchant')
      .select('surcharge')
      .where('merchant_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.surcharge ?? 'null')).toEqual(settings);
  });

  it('audit entries get seq 1, 2, … per merchant and list oldest first with before, after, actor and time', async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const on: SurchargeSettings = { enabled: true, rules: [VISA_COMMERCIAL] };
    const off: SurchargeSettings = { enabled: false, rules: [VISA_COMMERCIAL] };
    const at = new Date('2026-11-21T11:12:13.456Z');
    const e1 = await store.surchargeSettings.appendAudit({
      merchantId: a,
      action: 'ENABLE',
      actor: 'alice',
      at,
      before: DEFAULT_SURCHARGE_SETTINGS,
      after: on,
    });
    const e2 = await store.surchargeSettings.appendAudit({
      merchantId: a,
      action: 'DISABLE',
      actor: 'bob',
      at,
      before: on,
      after: off,
    });
    const f1 = await store.surchargeSettings.appendAudit({
      merchantId: b,
      action: 'DISABLE',
      actor: 'carol',
      at,
      before: DEFAULT_SURCHARGE_SETTINGS,
      after: DEFAULT_SURCHARGE_SETTINGS,
    });
    expect([e1.seq, e2.seq, f1.seq]).toEqual([1, 2, 1]);
    expect(await store.surchargeSettings.listAudit(a)).toEqual([e1, e2]);
    expect(await store.surchargeSettings.listAudit(b)).toEqual([f1]);
    expect((await store.surchargeSettings.listAudit(a))[0]).toEqual({
      merchantId: a,
      seq: 1,
      action: 'ENABLE',
      actor: 'alice',
      at,
      before: DEFAULT_SURCHARGE_SETTINGS,
      after: on,
    });
  });

  it('a change and its audit entry are written in one transaction: a failed audit write leaves the settings as they were', async () => {
    const id = await newMerchant();
    const service = new SurchargeSettingsService(store, clock);
    await service.enable(id, [VISA_COMMERCIAL], 'alice');
    // A store whose transactions fail at the audit write, after the settings were updated.
    const failing = {
      ...store,
      transaction: <T>(work: (tx: Store) => Promise<T>) =>
        store.transaction((tx) =>
          work({
            ...tx,
            transaction: tx.transaction.bind(tx),
            surchargeSettings: {
              get: tx.surchargeSettings.get.bind(tx.surchargeSettings),
              set: tx.surchargeSettings.set.bind(tx.surchargeSettings),
              listAudit: tx.surchargeSettings.listAudit.bind(tx.surchargeSettings),
              appendAudit: async () => {
                throw new Error('disk full');
              },
            },
          } as Store),
        ),
    } as unknown as Store;
    await expect(new SurchargeSettingsService(failing, clock).disable(id, 'mallory')).rejects.toThrow('disk full');
    expect(await service.get(id)).toEqual({ enabled: true, rules: [VISA_COMMERCIAL] });
    expect((await service.listAudit(id)).map((e) => e.actor)).toEqual(['alice']);
  });

  it('concurrent changes to one merchant are serialised: each audit entry starts from the previous one', async () => {
    const id = await newMerchant();
    const service = new SurchargeSettingsService(store, clock);
    const rules = Array.from(
      { length: 6 },
      (_, i): FeeRule => ({ brand: '*', reason: 'COMMERCIAL_CARD', fixed: i + 1 }),
    );
    await Promise.all(
      rules.map((rule, i) =>
        i % 2 === 0 ? service.enable(id, [rule], `actor-${i}`) : service.disable(id, `actor-${i}`),
      ),
    );
    const audit = await service.listAudit(id);
    expect(audit.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(audit[0]?.before).toEqual(DEFAULT_SURCHARGE_SETTINGS);
    for (let i = 1; i < audit.length; i++) expect(audit[i]?.before).toEqual(audit[i - 1]?.after);
    expect(await service.get(id)).toEqual(audit.at(-1)?.after);
  });
});
