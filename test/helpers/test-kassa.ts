import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Agent, fetch } from 'undici';
import { inject } from 'vitest';
import { type AppOverrides, buildApp, type Kassa } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import type { DialectName } from '../../src/storage/create-db.js';
import { type FreshDatabase, freshDatabase } from './dialects.js';

/** A real Kassa listening on an ephemeral port over HTTPS, with a fresh database of one dialect. */
export interface TestKassa {
  kassa: Kassa;
  /** https://127.0.0.1:<port> (the certificate names 127.0.0.1) */
  url: string;
  database: FreshDatabase;
  /** The CA to trust (the run's self-signed certificate). */
  ca: string;
  /** Everything the server logged, as text. */
  logs(): string;
  /** Creates a merchant through the domain service and returns its credentials. */
  createMerchant(
    input?: Partial<{ merchantId: string; country: string; currency: string; sandbox: boolean; webhookUrl: string }>,
  ): Promise<{
    merchantId: string;
    apiKey: string;
    keyId: string;
    webhookSecret: string;
  }>;
  /** An HTTP call with undici over TLS; `auth` is `{ merchantId, apiKey }` (Basic) or `{ token }` (Bearer). */
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  close(): Promise<void>;
}

export interface CallOptions {
  auth?: { merchantId: string; apiKey: string } | { token: string };
  json?: unknown;
  /** A raw body (sent as is, e.g. JSON text with PHP's escapes); set content-type in `headers`. */
  body?: string;
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert their shape
  body: any;
  text: string;
}

let merchantCounter = 0;

/** A TCP port free right now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startTestKassa(
  dialect: DialectName,
  overrides: AppOverrides = {},
  env: Record<string, string> = {},
): Promise<TestKassa> {
  // The database is made here, not from DATABASE_URL: it follows the env's KASSA_POSTGRES_LISTEN as Kassa's would.
  const database = await freshDatabase(dialect, undefined, { listen: env.KASSA_POSTGRES_LISTEN === 'on' });
  const dataDir = mkdtempSync(join(tmpdir(), 'kassa-data-'));
  const certFile = inject('tlsCertFile');
  const keyFile = inject('tlsKeyFile');
  const logStream = new PassThrough();
  const logChunks: string[] = [];
  logStream.on('data', (c: Buffer) => logChunks.push(c.toString('utf8')));
  // An ephemeral port chosen up front, so that KASSA_PUBLIC_URL (used in links and simulator URLs) is right.
  const port = await freePort();
  const config = loadConfig({
    KASSA_HOST: '127.0.0.1',
    KASSA_PORT: String(port),
    KASSA_DATA_DIR: dataDir,
    KASSA_TLS_CERT: certFile,
    KASSA_TLS_KEY: keyFile,
    KASSA_TOKEN_SECRET: 'test-token-secret-test-token-secret-0123456789',
    KASSA_DATA_KEY: 'test-data-key-test-data-key-test-data-key-0123',
    KASSA_PUBLIC_URL: `https://127.0.0.1:${port}`,
    LOG_LEVEL: 'info',
    // Load shedding would turn a busy CI machine into flaky 503s; its own behaviour is not under test here.
    KASSA_MAX_EVENT_LOOP_DELAY: '0',
    ...env,
  });
  const kassa = await buildApp(config, { db: database.db, logStream, ...overrides });
  await kassa.app.listen({ host: '127.0.0.1', port });
  const url = config.publicUrl;
  const ca = readFileSync(certFile, 'utf8');
  const dispatcher = new Agent({ connect: { ca } });

  return {
    kassa,
    url,
    database,
    ca,
    logs: () => logChunks.join(''),
    async createMerchant(input = {}) {
      merchantCounter++;
      const created = await kassa.services.merchants.createMerchant({
        merchantId: input.merchantId ?? `m${merchantCounter}_${Math.random().toString(36).slice(2, 8)}`,
        country: input.country ?? 'DK',
        currency: input.currency ?? 'DKK',
        sandbox: input.sandbox ?? true,
        webhookUrl: input.webhookUrl,
      });
      return {
        merchantId: created.merchant.merchantId,
        apiKey: created.apiKey,
        keyId: created.keyId,
        webhookSecret: created.merchant.webhookSecret,
      };
    },
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.auth && 'token' in options.auth) headers.authorization = `Bearer ${options.auth.token}`;
      else if (options.auth) {
        headers.authorization = `Basic ${Buffer.from(`${options.auth.merchantId}:${options.auth.apiKey}`).toString('base64')}`;
      }
      let body: string | undefined;
      if (options.json !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = JSON.stringify(options.json);
      } else if (options.body !== undefined) {
        body = options.body;
      } else if (options.form) {
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
        body = new URLSearchParams(options.form).toString();
      }
      const res = await fetch(`${url}${path}`, { method, headers, body, dispatcher });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers as unknown as Headers, body: parsed, text };
    },
    async close() {
      await kassa.app.close();
      await dispatcher.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true }); // each test server's own: none left in the temp directory
    },
  };
}
