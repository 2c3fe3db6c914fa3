import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { loadRuntimeSecrets } from '../../src/config/data-dir.js';
import { createDb } from '../../src/storage/create-db.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

// Security (issue 9, defect 4): the data dir holds the database (customer data, webhook secrets) and the generated
// secrets; no other local user may read any of it.
describe('the data dir is private to its owner', () => {
  const roots: string[] = [];
  const root = () => {
    const dir = mkdtempSync(join(tmpdir(), 'kassa-perm-'));
    roots.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of roots.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const configFor = (dataDir: string) => loadConfig({ KASSA_DATA_DIR: dataDir, KASSA_TLS: 'proxy' });

  it('a first start creates the dir 0700, the secrets 0600, and the SQLite database with its -wal and -shm 0600', async () => {
    const dataDir = join(root(), 'data');
    const config = configFor(dataDir);
    await loadRuntimeSecrets(config);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, 'token-secret'))).toBe(0o600);
    expect(modeOf(join(dataDir, 'data-key'))).toBe(0o600);
    const file = join(dataDir, 'kassa.db');
    const db = createDb({ dialect: 'sqlite', file });
    try {
      await sql`create table t (x integer)`.execute(db.kysely);
      await sql`insert into t values (1)`.execute(db.kysely);
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect([f, modeOf(f)]).toEqual([f, 0o600]);
    } finally {
      await db.close();
    }
  });

  it('a data dir other users can read is refused with a message naming KASSA_DATA_DIR', async () => {
    const dataDir = join(root(), 'shared');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    const start = loadRuntimeSecrets(configFor(dataDir));
    await expect(start).rejects.toBeInstanceOf(ConfigError);
    await expect(loadRuntimeSecrets(configFor(dataDir))).rejects.toThrow(/KASSA_DATA_DIR: .*chmod 700/);
  });

  it('a key file other users can read is refused', async () => {
    const dataDir = join(root(), 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, 'data-key'), 'x'.repeat(43));
    chmodSync(join(dataDir, 'data-key'), 0o644);
    await expect(loadRuntimeSecrets(configFor(dataDir))).rejects.toThrow(/data-key .*chmod 600/);
  });
});
