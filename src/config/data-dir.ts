import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { Config } from './config.js';

/** Secrets and TLS material Kassa runs with, from the config or, when unset there, from the data dir. */
export interface RuntimeSecrets {
  tokenSecret: string;
  dataKey: string;
  /** PEM certificate and key; undefined in proxy mode. */
  tls?: { cert: string; key: string; generated: boolean };
}

function readOrCreate(file: string, make: () => string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
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
  mkdirSync(config.dataDir, { recursive: true });
  const tokenSecret =
    config.tokenSecret ??
    readOrCreate(join(config.dataDir, 'token-secret'), () => randomBytes(32).toString('base64url'));
  const dataKey =
    config.dataKey ?? readOrCreate(join(config.dataDir, 'data-key'), () => randomBytes(32).toString('base64url'));
  if (config.tls.mode === 'proxy' || !options.tls) return { tokenSecret, dataKey };
  if (config.tls.certFile && config.tls.keyFile) {
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
