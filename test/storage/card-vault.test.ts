import { createCipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pseudoCardNumber, pseudoCardNumberKey } from '../../src/domain/cards/pseudo-card-number.js';
import { cardFingerprint } from '../../src/domain/payments/card-checks.js';
import type { StoredCardInput } from '../../src/domain/ports/stored-card-vault.js';
import { KyselyCardKeyring } from '../../src/storage/card-keyring.kysely.js';
import { KyselyCardVault } from '../../src/storage/card-vault.kysely.js';
import { migrateToLatest } from '../../src/storage/create-db.js';
import { KyselyStore } from '../../src/storage/kysely-store.js';
import { KyselyStoredCardVault } from '../../src/storage/stored-card-vault.kysely.js';
import { WebhookSecretBox } from '../../src/storage/webhook-secret-box.js';
import { testPan } from '../helpers/cards.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';

const DATA_KEY = 'card-vault-test-data-key-0123456789abcdef';
const tokenKey = pseudoCardNumberKey(DATA_KEY);
const GRACE_MS = 10 * 60_000;

describe.each(DIALECTS)('card vault: keyring, stored cards, 3-D Secure pending cards (%s)', (dialect) => {
  let database: FreshDatabase;
  let keyring: KyselyCardKeyring;
  let vault: KyselyStoredCardVault;
  let pending: KyselyCardVault;
  let now = new Date('2026-11-23T10:00:00.000Z');
  const clock = () => now;
  const pans: string[] = [];

  async function merchant(merchantId: string): Promise<string> {
    await new KyselyStore(database.db.kysely, new WebhookSecretBox(DATA_KEY)).merchants.insert({
      merchantId,
      name: merchantId,
      country: 'DK',
      currency: 'DKK',
      sandbox: true,
      webhookSecret: 'whsec_dGVzdA==',
      creationDate: now,
    });
    return merchantId;
  }

  async function payment(merchantId: string): Promise<string> {
    const payId = randomUUID().replaceAll('-', '');
    const t = now.toISOString();
    await database.db.kysely
      .insertInto('payment')
      .values({
        pay_id: payId,
        merchant_id: merchantId,
        trans_id: payId,
        ref_nr: null,
        status: 'PENDING',
        response_code: '60010001',
        currency: 'DKK',
        value: 100,
        captured_value: 0,
        refunded_value: 0,
        surcharge_status: 'NOT_OFFERED',
        surcharge_reason: 'DISABLED',
        surcharge_value: 0,
        surcharge_captured_value: 0,
        surcharge_refunded_value: 0,
        capture_method: 'AUTOMATIC',
        integration_type: 'DIRECT',
        channel: 'BROWSER',
        language: null,
        card: null,
        three_ds: null,
        order_data: null,
        customer_info: null,
        urls: null,
        metadata: null,
        session_id: null,
        surcharge_consent: null,
        created_at: t,
        updated_at: t,
      } as never)
      .execute();
    return payId;
  }

  function input(merchantId: string, pan: string): StoredCardInput {
    pans.push(pan);
    return {
      merchantId,
      pseudoCardNumber: pseudoCardNumber(tokenKey, merchantId, pan),
      fingerprint: cardFingerprint(pan, DATA_KEY),
      brand: 'VISA',
      bin: pan.slice(0, 8),
      last4: pan.slice(-4),
      expiryDate: '203012',
      credentialType: 'RECURRING',
      schemeReferenceId: '123456789012345',
      initialPayId: randomUUID().replaceAll('-', ''),
      card: { number: pan, expiryDate: '203012', cardholderName: 'Karen Jensen' },
    };
  }

  beforeAll(async () => {
    database = await freshDatabase(dialect);
    await migrateToLatest(database.db);
    keyring = new KyselyCardKeyring(database.db.kysely, DATA_KEY);
    vault = new KyselyStoredCardVault(database.db.kysely, keyring);
    pending = new KyselyCardVault(database.db.kysely, keyring, clock);
    await merchant('shop-a');
    await merchant('shop-b');
  });
  afterAll(async () => database?.drop());

  it('stores a card encrypted and reveals it to its merchant only', async () => {
    const pan = testPan('40000000', '1000', '101');
    const card = input('shop-a', pan);
    const saved = await vault.save(card, now);
    expect(saved).toMatchObject({ status: 'ACTIVE', pseudoCardNumber: card.pseudoCardNumber, last4: pan.slice(-4) });
    expect(await vault.reveal('shop-a', card.pseudoCardNumber)).toEqual({
      number: pan,
      expiryDate: '203012',
      cardholderName: 'Karen Jensen',
    });
    // Guards tenancy: another merchant's token is useless.
    expect(await vault.find('shop-b', card.pseudoCardNumber)).toBeUndefined();
    expect(await vault.reveal('shop-b', card.pseudoCardNumber)).toBeUndefined();
  });

  it('a row copied to another merchant does not decrypt (AAD binds merchant and token)', async () => {
    const pan = testPan('40000000', '1000', '102');
    const card = input('shop-a', pan);
    await vault.save(card, now);
    const row = await database.db.kysely
      .selectFrom('stored_card')
      .selectAll()
      .where('pseudo_card_number', '=', card.pseudoCardNumber)
      .executeTakeFirstOrThrow();
    await database.db.kysely
      .insertInto('stored_card')
      .values({ ...row, merchant_id: 'shop-b' })
      .execute();
    expect(await vault.reveal('shop-b', card.pseudoCardNumber)).toBeUndefined();
    // An undecryptable row would (rightly) keep its key from ever being retired: remove the forgery.
    await database.db.kysely.deleteFrom('stored_card').where('merchant_id', '=', 'shop-b').execute();
  });

  it('saving the same card again keeps its token and refreshes expiry and scheme reference', async () => {
    const pan = testPan('40000000', '1000', '103');
    const first = await vault.save(input('shop-a', pan), now);
    const again = await vault.save({ ...input('shop-a', pan), expiryDate: '203112', schemeReferenceId: '999' }, now);
    expect(again.pseudoCardNumber).toBe(first.pseudoCardNumber);
    expect(again).toMatchObject({ expiryDate: '203112', schemeReferenceId: '999' });
  });

  it('a deleted card keeps a DELETED record without ciphertext and reveals nothing', async () => {
    const card = input('shop-a', testPan('40000000', '1000', '104'));
    await vault.save(card, now);
    expect(await vault.delete('shop-b', card.pseudoCardNumber, now)).toBe(false);
    expect(await vault.delete('shop-a', card.pseudoCardNumber, now)).toBe(true);
    expect(await vault.delete('shop-a', card.pseudoCardNumber, now)).toBe(false);
    expect(await vault.find('shop-a', card.pseudoCardNumber)).toMatchObject({ status: 'DELETED' });
    expect(await vault.reveal('shop-a', card.pseudoCardNumber)).toBeUndefined();
    const row = await database.db.kysely
      .selectFrom('stored_card')
      .selectAll()
      .where('pseudo_card_number', '=', card.pseudoCardNumber)
      .executeTakeFirstOrThrow();
    expect([row.ciphertext, row.iv, row.tag, row.key_id]).toEqual([null, null, null, null]);
  });

  it('a 3-D Secure pending card of the first format (v1) still decrypts, and the sweep moves it to the keyring', async () => {
    const payId = await payment('shop-a');
    const pan = testPan('40000000', '1005', '105');
    pans.push(pan);
    const legacyKey = Buffer.from(hkdfSync('sha256', DATA_KEY, Buffer.alloc(0), 'kassa/card-vault/v1', 32));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', legacyKey, iv);
    cipher.setAAD(Buffer.from(payId));
    const ct = Buffer.concat([cipher.update(JSON.stringify({ number: pan, expiryDate: '203012' })), cipher.final()]);
    await database.db.kysely
      .insertInto('pending_card')
      .values({
        pay_id: payId,
        key_version: 'v1',
        iv: iv.toString('base64'),
        ciphertext: ct.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
        expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
      })
      .execute();
    expect(await pending.read(payId, now)).toEqual({ number: pan, expiryDate: '203012' });
    while ((await keyring.reencrypt(100, now)) > 0) {}
    const row = await database.db.kysely
      .selectFrom('pending_card')
      .select('key_version')
      .where('pay_id', '=', payId)
      .executeTakeFirstOrThrow();
    expect(row.key_version).toMatch(/^k\d+$/);
    expect(await pending.read(payId, now)).toEqual({ number: pan, expiryDate: '203012' });
  });

  // Guards availability and PCI DSS 3.6: rotation while payments go on, then retirement of the old key.
  it('rotation under load: no read or write fails, everything moves to the new key, the old key is retired', async () => {
    const before = await keyring.activeKeyId(now);
    const cards = Array.from({ length: 40 }, (_, i) =>
      input('shop-a', testPan('40000000', '1000', String(200 + i).padStart(3, '0'))),
    );
    for (const card of cards.slice(0, 20)) await vault.save(card, now);
    const payIds = await Promise.all(Array.from({ length: 10 }, () => payment('shop-a')));
    for (const payId of payIds)
      await pending.put(
        payId,
        { number: cards[0]?.card.number ?? '', expiryDate: '203012', securityCode: '123' },
        new Date(now.getTime() + 3_600_000),
      );

    let failures = 0;
    const load = (async () => {
      for (let round = 0; round < 5; round++) {
        await Promise.all([
          ...cards.slice(round * 4 + 20, round * 4 + 24).map((c) => vault.save(c, now)),
          ...cards.slice(0, 20).map(async (c) => {
            const card = await vault.reveal('shop-a', c.pseudoCardNumber);
            if (card?.number !== c.card.number) failures++;
          }),
          ...payIds.map(async (payId) => {
            if ((await pending.read(payId, now))?.securityCode !== '123') failures++;
          }),
        ]);
      }
    })();
    const rotated = await keyring.rotate(now);
    expect(rotated).toBe(before + 1);
    let moved = 0;
    for (let n = await keyring.reencrypt(7, now); n > 0; n = await keyring.reencrypt(7, now)) moved += n;
    await load;
    while ((await keyring.reencrypt(50, now)) > 0) {}
    expect(failures).toBe(0);
    expect(moved).toBeGreaterThan(0);

    // Within the grace period the old key stays (a node may still be writing with it).
    expect(await keyring.retireUnused(now, GRACE_MS)).toEqual([]);
    now = new Date(now.getTime() + GRACE_MS + 1);
    const retired = await keyring.retireUnused(now, GRACE_MS);
    expect(retired).toContain(before);
    const status = await keyring.status();
    expect(status.find((k) => k.keyId === before)).toMatchObject({ storedCards: 0, pendingCards: 0, active: false });
    expect(status.find((k) => k.keyId === before)?.retiredAt).toBeDefined();
    const active = await database.db.kysely
      .selectFrom('stored_card')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'ACTIVE')
      .executeTakeFirstOrThrow();
    expect(status.find((k) => k.keyId === rotated)).toMatchObject({ active: true, storedCards: Number(active.n) });
    const erased = await database.db.kysely
      .selectFrom('card_key')
      .select('wrapped_key')
      .where('key_id', '=', before)
      .executeTakeFirstOrThrow();
    expect(erased.wrapped_key).toBe('');
    for (const c of cards) expect((await vault.reveal('shop-a', c.pseudoCardNumber))?.number).toBe(c.card.number);
  });

  it('a key with data under it is never retired', async () => {
    const card = input('shop-a', testPan('40000000', '1000', '301'));
    await vault.save(card, now);
    const old = await keyring.activeKeyId(now);
    await keyring.rotate(now);
    now = new Date(now.getTime() + GRACE_MS + 1);
    expect(await keyring.retireUnused(now, GRACE_MS)).not.toContain(old);
    expect((await vault.reveal('shop-a', card.pseudoCardNumber))?.number).toBe(card.card.number);
  });

  // Guards PCI DSS 3.5: no PAN in clear anywhere in the database (tables, and for SQLite the file and its WAL).
  it('no card number appears in clear in any table, nor in the SQLite file or WAL', async () => {
    const tables = ['stored_card', 'card_key', 'pending_card', 'payment'] as const;
    let dump = '';
    for (const table of tables)
      dump += JSON.stringify(await database.db.kysely.selectFrom(table).selectAll().execute());
    expect(pans.length).toBeGreaterThan(40);
    for (const pan of pans) expect(dump).not.toContain(pan);
    if (database.file !== undefined) {
      const dir = dirname(database.file);
      for (const name of readdirSync(dir)) {
        const bytes = readFileSync(join(dir, name)).toString('latin1');
        for (const pan of pans) expect(bytes.includes(pan), `${pan} in ${name}`).toBe(false);
      }
    }
  });
});
