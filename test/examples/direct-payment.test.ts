import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../helpers/cli.js';
import { freePort } from '../helpers/test-kassa.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs examples/direct-payment.ts exactly as the README tells a merchant to, against a freshly started Kassa. */
describe('examples/direct-payment.ts', () => {
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('gets a token, pays with a Y card, an N card and a declined card, and prints each payment', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kassa-example-'));
    const port = await freePort();
    server = await startServerProcess({
      KASSA_DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${join(dataDir, 'kassa.db')}`,
      KASSA_PORT: String(port),
      KASSA_HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      KASSA_MAX_EVENT_LOOP_DELAY: '0', // load shedding is not under test; a busy machine would make it flaky
    });
    const match = await server.waitFor(/apiKey:\s+(kassa_sk_\S+)/);
    await server.waitFor(/Kassa listens on/);
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/direct-payment.ts'], {
      cwd: ROOT,
      timeout: 60_000,
      env: {
        ...process.env,
        NODE_EXTRA_CA_CERTS: join(dataDir, 'tls-cert.pem'),
        KASSA_URL: `https://127.0.0.1:${port}`,
        KASSA_MERCHANT_ID: 'demo',
        KASSA_API_KEY: match[1] ?? '',
      },
    });
    mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
    writeFileSync(join(ROOT, 'test-artifacts', 'direct-payment-example.txt'), stdout);
    expect(stdout).toContain('OAuth 2 client credentials: the client fetches and caches the access token');
    expect(stdout).toContain('== Visa, 3-D Secure Y (frictionless): OK 00000000 (Transaction successful)');
    expect(stdout).toContain('== Visa, 3-D Secure N (not authenticated): FAILED 20010001');
    expect(stdout).toContain('== Visa, declined by the issuer (insufficient funds): FAILED 20020051');
    expect(stdout).toContain('"transStatus": "Y"');
    // MANUAL path: authorize, capture part, refund part.
    expect(stdout).toContain('== Mastercard, MANUAL capture: authorized: AUTHORIZED 00000000');
    expect(stdout).toContain('== captured 150.00 DKK: OK');
    expect(stdout).toContain('== refunded 40.00 DKK: OK');
    const after = JSON.parse(stdout.slice(stdout.indexOf('{', stdout.indexOf('== after a partial capture'))));
    expect(after.amount).toEqual({ value: 24_900, currency: 'DKK', capturedValue: 15_000, refundedValue: 4_000 });
    expect(after.operations.map((o: { type: string }) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE', 'REFUND']);
  });
});
