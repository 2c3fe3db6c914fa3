import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { signWebhook } from '../../src/notifications/webhook-signer.js';
import { freePort } from '../helpers/test-kassa.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = `whsec_${Buffer.from('example-receiver-test-secret-32b').toString('base64')}`;

/** Runs examples/notification-receiver.ts as a merchant would and sends it what Kassa sends. */
describe('examples/notification-receiver.ts', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill();
  });

  it('accepts a signed notification once, ignores its redelivery and rejects a bad signature', async () => {
    const port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', 'examples/notification-receiver.ts'], {
      cwd: ROOT,
      env: { ...process.env, KASSA_WEBHOOK_SECRET: SECRET, PORT: String(port) },
    });
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const waitFor = (re: RegExp) => vi.waitFor(() => expect(out).toMatch(re), { timeout: 20_000, interval: 25 });
    await waitFor(/listening/);

    const url = `http://127.0.0.1:${port}/kassa/notifications`;
    const body = JSON.stringify({ type: 'payment.authorized', payId: 'a'.repeat(32), status: 'OK' });
    const send = (headers: Record<string, string>) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const signed = signWebhook(SECRET, 'msg_1', new Date(), body);

    expect((await send({ ...signed })).status).toBe(204);
    expect((await send({ ...signed })).status).toBe(204);
    const forged = { ...signed, 'webhook-signature': signed['webhook-signature'].replace(/.{4}$/, 'AAA=') };
    expect((await send(forged)).status).toBe(400);
    await waitFor(/rejected/);
    expect(out.match(/received payment\.authorized/g)).toHaveLength(1);
    expect(out).toContain('duplicate msg_1 ignored');
  });
});
