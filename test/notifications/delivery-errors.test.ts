import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimedNotification } from '../../src/domain/notifications/notification.js';
import type { ResolveAll } from '../../src/notifications/ssrf-guard.js';
import { UndiciWebhookSender } from '../../src/notifications/webhook-sender.js';

const resolveAll: ResolveAll = async (host) =>
  (({ 'metadata.internal': ['169.254.169.254'], 'db.internal': ['10.0.0.5'] }) as Record<string, string[]>)[host]?.map(
    (address) => ({ address, family: 4 }),
  ) ?? [];

const claim = (targetUrl: string, sandbox: boolean): ClaimedNotification => ({
  id: 'msg_1',
  merchantId: 'm',
  type: 'payment.succeeded',
  body: '{}',
  targetUrl,
  attemptCount: 0,
  createdAt: new Date(),
  leaseUntil: new Date(Date.now() + 60_000),
  webhookSecret: `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`,
  sandbox,
});

/**
 * Issue 9: the merchant's delivery log must not work as a port scanner of Kassa's network. Refused targets and failed
 * connections read `address not allowed` / `connection failed`, without an address or a socket error code; the
 * detail goes to the server log only.
 */
describe('delivery errors shown to merchants', () => {
  let sender: UndiciWebhookSender;
  let closedPort: number;
  let closed: Server;

  beforeAll(async () => {
    sender = new UndiciWebhookSender({ timeoutMs: 2_000, resolveAll, forbiddenPorts: [5432] });
    // A port that was just free: nothing listens on it (ECONNREFUSED).
    closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    closedPort = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
  });
  afterAll(async () => sender?.close());

  it.each([
    ['http://169.254.169.254/latest/meta-data', true],
    ['http://metadata.internal/latest/meta-data', true],
    ['https://db.internal/hook', false],
    ['http://127.0.0.1:5432/', true],
  ])('%s (sandbox %s) reads "address not allowed" without the address', async (url, sandbox) => {
    const result = await sender.send(claim(url, sandbox), new Date());
    expect(result.error).toBe('address not allowed');
    expect(result.httpStatus).toBeUndefined();
    expect(result.detail).toMatch(/refused/); // the server log keeps why
  });

  it('a closed port reads "connection failed", not ECONNREFUSED and the address', async () => {
    const result = await sender.send(claim(`http://127.0.0.1:${closedPort}/hook`, true), new Date());
    expect(result.error).toBe('connection failed');
    expect(result.error).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    expect(result.detail).toMatch(/ECONNREFUSED/);
  });
});
