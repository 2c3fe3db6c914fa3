import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kassaCli, kassaCliResult } from '../helpers/cli.js';

function tempEnv(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'kassa-cli-keys-'));
  return { KASSA_DATA_DIR: dir, DATABASE_URL: `sqlite:${join(dir, 'kassa.db')}`, LOG_LEVEL: 'warn' };
}

describe('kassa keys / kassa cards', () => {
  it('keys rotate adds a key that becomes active; keys status lists both, the older one decrypt-only', async () => {
    const env = tempEnv();
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
    const env = tempEnv();
    await kassaCli(['merchant', 'create', '--id', 'shop', '--country', 'DK', '--currency', 'DKK', '--sandbox'], env);
    const r = await kassaCliResult(['cards', 'delete', 'shop', '0123456789012345'], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/stored card/i);
  }, 120_000);
});
