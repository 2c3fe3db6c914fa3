import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { loadRuntimeSecrets } from '../../src/config/data-dir.js';
import { buildServices, openDatabase } from '../../src/services.js';
import { testPan } from '../helpers/cards.js';
import { cliDataEnv, kassaCli, kassaCliResult, removeCliDataDirs } from '../helpers/cli.js';

afterAll(removeCliDataDirs);

describe('kassa keys / kassa cards', () => {
  it('keys rotate adds a key that becomes active; keys status lists both, the older one decrypt-only', async () => {
    const env = cliDataEnv('kassa-cli-keys-');
    const first = JSON.parse((await kassaCli(['keys', 'rotate', '--json'], env)).stdout);
    const second = JSON.parse((await kassaCli(['keys', 'rotate', '--json'], env)).stdout);
    expect(second.keyId).toBe(first.keyId + 1);
    const status = JSON.parse((await kassaCli(['keys', 'status', '--json'], env)).stdout);
    expect(status).toMatchObject([
      { keyId: first.keyId, active: false, storedCards: 0 },
      { keyId: second.keyId, active: true },
    ]);
    const text = (await kassaCli(['keys', 'status'], env)).stdout;
    expect(text).toMatch(/DECRYPT-ONLY/);
    expect(text).toMatch(/ACTIVE/);
  }, 120_000);

  it('cards delete of an unknown pseudo card number fails naming STORED_CARD_NOT_FOUND', async () => {
    const env = cliDataEnv('kassa-cli-keys-');
    await kassaCli(['merchant', 'create', '--id', 'shop', '--country', 'DK', '--currency', 'DKK', '--sandbox'], env);
    const r = await kassaCliResult(['cards', 'delete', 'shop', '0123456789012345'], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/stored card/i);
  }, 120_000);

  it('the support desk shows and deletes a stored card; its number is never printed', async () => {
    const env = cliDataEnv('kassa-cli-keys-');
    await kassaCli(['merchant', 'create', '--id', 'shop', '--country', 'DK', '--currency', 'DKK', '--sandbox'], env);
    // A card stored as an approved initial payment would store it, with the deployment's data key.
    const config = loadConfig(env);
    const db = await openDatabase(config);
    const pan = testPan('40000000', '1000', '901');
    let pseudo: string;
    try {
      const services = buildServices(config, db, await loadRuntimeSecrets(config, { tls: false }));
      pseudo = (
        await services.storedCards.store({
          merchantId: 'shop',
          card: { number: pan, expiryDate: '203012' },
          brand: 'VISA',
          bin: pan.slice(0, 8),
          credentialOnFile: { type: 'RECURRING', initialPayment: true },
          initialPayId: 'b'.repeat(32),
        })
      ).pseudoCardNumber;
    } finally {
      await db.close();
    }
    const shown = (await kassaCli(['cards', 'show', 'shop', pseudo], env)).stdout;
    expect(JSON.parse(shown)).toMatchObject({ pseudoCardNumber: pseudo, status: 'ACTIVE', last4: pan.slice(-4) });
    expect(shown).not.toContain(pan);
    expect((await kassaCli(['cards', 'delete', 'shop', pseudo], env)).stdout).toContain('deleted');
    expect(JSON.parse((await kassaCli(['cards', 'show', 'shop', pseudo], env)).stdout)).toMatchObject({
      status: 'DELETED',
    });
  }, 120_000);
});
