import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/storage/create-db.js';
import { KyselyStore } from '../../src/storage/kysely-store.js';
import { sealClearWebhookSecrets, WebhookSecretBox } from '../../src/storage/webhook-secret-box.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('WebhookSecretBox', () => {
  const box = new WebhookSecretBox('box-test-data-key-0123456789abcdef0123');

  it('seals a secret so that the stored form holds nothing of it, and opens it again', () => {
    const sealed = box.seal('shop1', SECRET);
    expect(sealed).toMatch(/^v1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(SECRET.slice(6, 14));
    expect(sealed.length).toBeLessThanOrEqual(128); // the column is varchar(128)
    expect(box.seal('shop1', SECRET)).not.toBe(sealed); // a fresh IV each time
    expect(box.open('shop1', sealed)).toBe(SECRET);
  });

  // Security: a sealed secret copied onto another merchant's row, or read with another deployment's key, does not open.
  it('refuses another merchant id and another data key', () => {
    const sealed = box.seal('shop1', SECRET);
    expect(() => box.open('shop2', sealed)).toThrow();
    expect(() => new WebhookSecretBox('another-data-key-0123456789abcdef01234').open('shop1', sealed)).toThrow();
  });
});

describe.each(DIALECTS)('webhook secrets at rest (%s)', (dialect) => {
  let t: TestKassa;
  beforeAll(async () => {
    t = await startTestKassa(dialect);
  });
  afterAll(async () => t?.close());

  // Issue 9, defect 4: the database alone does not give away the key that signs notifications.
  it('a merchant created through Kassa has its webhook secret sealed in the database, and Kassa reads it back', async () => {
    const m = await t.createMerchant();
    const row = await t.database.db.kysely
      .selectFrom('merchant')
      .select('webhook_secret')
      .where('merchant_id', '=', m.merchantId)
      .executeTakeFirstOrThrow();
    expect(m.webhookSecret).toMatch(/^whsec_/);
    expect(row.webhook_secret).toMatch(/^v1:/);
    expect(row.webhook_secret).not.toContain(m.webhookSecret.slice(6));
    const auth = await t.kassa.services.merchants.authenticateApiKey(m.merchantId, m.apiKey);
    expect(auth?.merchant.webhookSecret).toBe(m.webhookSecret);
  });
});

describe.each(DIALECTS)('sealing clear webhook secrets of an older database (%s)', (dialect) => {
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshDatabase(dialect);
    await migrateToLatest(database.db);
  });
  afterAll(async () => database?.drop());

  it('seals every clear secret once; the merchants read the same secrets afterwards', async () => {
    const box = new WebhookSecretBox('upgrade-test-data-key-0123456789abcdef');
    for (const id of ['old1', 'old2']) {
      await database.db.kysely
        .insertInto('merchant')
        .values({
          merchant_id: id,
          name: id,
          country: 'DK',
          currency: 'DKK',
          sandbox: 1,
          webhook_url: null,
          webhook_secret: `${SECRET}${id}`,
          surcharge: null,
          created_at: new Date().toISOString(),
        })
        .execute();
    }
    expect(await sealClearWebhookSecrets(database.db.kysely, box)).toBe(2);
    expect(await sealClearWebhookSecrets(database.db.kysely, box)).toBe(0);
    const rows = await database.db.kysely.selectFrom('merchant').select('webhook_secret').execute();
    expect(rows.every((r) => WebhookSecretBox.isSealed(r.webhook_secret))).toBe(true);
    const store = new KyselyStore(database.db.kysely, box);
    expect((await store.merchants.find('old2'))?.webhookSecret).toBe(`${SECRET}old2`);
  });
});
