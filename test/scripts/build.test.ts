import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { type ServerProcess, serveEnv, startServerProcess } from '../helpers/cli.js';
import { freePort } from '../helpers/test-kassa.js';

// `npm start` runs the compiled JavaScript (scripts/build.ts), not the sources through tsx (issue 12: ~75 MB less
// memory per node, ~30 % more payments per second): the build must give a server that works end to end. The build is
// the run's own (test/helpers/build-setup.ts runs scripts/build.ts once for every test that starts `kassa`).
describe('npm run build → node dist/main.js serve', { timeout: 120_000 }, () => {
  let server: ServerProcess;
  let url: string;
  let authorization: string;
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });

  beforeAll(async () => {
    const port = await freePort();
    url = `https://127.0.0.1:${port}`;
    server = await startServerProcess(
      serveEnv(port, { KASSA_DATA_DIR: mkdtempSync(join(tmpdir(), 'kassa-build-')), DATABASE_URL: '' }),
    );
    const [, apiKey] = (await server.waitFor(/apiKey:\s+(\S+)/, 60_000)) as RegExpMatchArray;
    await server.waitFor(/Kassa listens on/, 60_000);
    authorization = `Basic ${Buffer.from(`demo:${apiKey}`).toString('base64')}`;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await dispatcher.close();
  });

  it('serves the hosted pages’ browser scripts it copied beside the compiled code', async () => {
    const res = await fetch(`${url}/hosted/assets/card-step.js`, { dispatcher });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await res.text()).toMatch(/\S/);
  });

  it('creates a DIRECT payment (BIN table found from dist/, the SQLite writer thread running)', async () => {
    const res = await fetch(`${url}/api/v1/payments`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(directPayment(testPan('40000000', '1000'))),
      dispatcher,
    });
    const body = (await res.json()) as { status: string; operations: { type: string; xId: string }[] };
    expect(res.status).toBe(201);
    expect(body.status).toBe('OK');
    expect(body.operations.map((o) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE']);
  });
});
