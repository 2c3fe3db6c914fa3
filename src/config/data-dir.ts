import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, ConfigError } from './config.js';

/** Secrets and TLS material Kassa runs with, from the config or, when unset there, from the data dir. */
export interface RuntimeSecrets {
  tokenSecret: string;
  dataKey: string;
  /** PEM certificate and key; undefined in proxy mode. */
  tls?: { cert: string; key: string; generated: boolean };
}

/** Permission bits that let the group or other local users in (POSIX mode bits). */
const GROUP_OR_OTHER = 0o077;

/**
 * Creates the data dir owner-only (0700) when missing, and refuses one that the group or other local users can enter
 * or read: it holds the SQLite database (customer data, webhook secrets) and the generated secrets (issue 9, defect 4).
 * @throws ConfigError naming KASSA_DATA_DIR and the fix (`chmod 700`).
 */
export function ensurePrivateDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  refuseShared(dataDir, 'KASSA_DATA_DIR', 'directory', '700');
}

/** @throws ConfigError when the group or other users have any permission on `path` (files need 600, dirs 700). */
function refuseShared(path: string, setting: string, kind: string, fix: string): void {
  if (process.platform === 'win32') return; // POSIX mode bits do not describe Windows ACLs
  const mode = statSync(path).mode & 0o777;
  if ((mode & GROUP_OR_OTHER) !== 0) {
    throw new ConfigError([
      `${setting}: the ${kind} ${path} is accessible to other local users (mode ${mode.toString(8)}); run \`chmod ${fix} ${path}\``,
    ]);
  }
}

function readOrCreate(file: string, make: () => string): string {
  if (existsSync(file)) {
    refuseShared(file, 'KASSA_DATA_DIR', 'key file', '600');
    return readFileSync(file, 'utf8').trim();
  }
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}

/**
 * Reads the configured secrets; generates missing ones into the data dir on first start (DESIGN.md §3): a token
 * secret and a card-fingerprint key (256 bits each), and a self-signed certificate for localhost when no
 * KASSA_TLS_CERT is set. A multi-node deployment must set KASSA_TOKEN_SECRET and KASSA_DATA_KEY instead.
 */
export async function loadRuntimeSecrets(config: Config, options = { tls: true }): Promise<RuntimeSecrets> {
  ensurePrivateDataDir(config.dataDir);
  const tokenSecret =
    config.tokenSecret ??
    readOrCreate(join(config.dataDir, 'token-secret'), () => randomBytes(32).toString('base64url'));
  const dataKey =
    config.dataKey ?? readOrCreate(join(config.dataDir, 'data-key'), () => randomBytes(32).toString('base64url'));
  if (config.tls.mode === 'proxy' || !options.tls) return { tokenSecret, dataKey };
  if (config.tls.certFile && config.tls.keyFile) {
    refuseShared(config.tls.keyFile, 'KASSA_TLS_KEY', 'key file', '600');
    return {
      tokenSecret,
      dataKey,
      tls: {
        cert: readFileSync(config.tls.certFile, 'utf8'),
        key: readFileSync(config.tls.keyFile, 'utf8'),
        generated: false,
      },
    };
  }
  const certFile = join(config.dataDir, 'tls-cert.pem');
  const keyFile = join(config.dataDir, 'tls-key.pem');
  if (existsSync(certFile) && existsSync(keyFile)) {
    refuseShared(keyFile, 'KASSA_DATA_DIR', 'key file', '600');
    return {
      tokenSecret,
      dataKey,
      tls: { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), generated: false },
    };
  }
  const publicHost = new URL(config.publicUrl).hostname;
  const altNames = [
    { type: 2 as const, value: 'localhost' },
    { type: 7 as const, ip: '127.0.0.1' },
    { type: 7 as const, ip: '::1' },
    ...(publicHost !== 'localhost' && !/^[\d.]+$|:/.test(publicHost) ? [{ type: 2 as const, value: publicHost }] : []),
  ];
  // selfsigned (and its X.509 stack) is loaded only to make a certificate, once per data directory: every other start
  // and every one-shot `kassa` command skips ~0.14 s of module loading.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: publicHost }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 365 * 86_400_000),
    extensions: [{ name: 'subjectAltName', altNames }],
  });
  writeFileSync(certFile, pems.cert);
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  return { tokenSecret, dataKey, tls: { cert: pems.cert, key: pems.private, generated: true } };
}
