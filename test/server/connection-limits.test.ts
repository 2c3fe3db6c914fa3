import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

/** A TLS connection to Kassa that collects what the server sends and when it closes. */
function open(t: TestKassa): Promise<{ socket: TLSSocket; received(): string; closed: Promise<number> }> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect({ host: hostname, port: Number(port), ca: t.ca }, () => {
      const started = Date.now();
      const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - started)));
      resolve({ socket, received: () => text, closed });
    });
    socket.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    socket.once('error', reject);
  });
}

/** Issue 9: slow clients and connection floods cannot hold a process's connections for ever. */
describe('server timeouts and connection cap', () => {
  let t: TestKassa;
  beforeAll(async () => {
    t = await startTestKassa('sqlite', {}, { KASSA_REQUEST_TIMEOUT: '2', KASSA_HEADERS_TIMEOUT: '1' });
  });
  afterAll(async () => t?.close());

  // Security (slowloris): a body trickled one byte at a time is cut once the request timeout has passed.
  it('a body trickled a byte every 300 ms is cut with 408 problem+json after KASSA_REQUEST_TIMEOUT', async () => {
    const m = await t.createMerchant();
    const auth = Buffer.from(`${m.merchantId}:${m.apiKey}`).toString('base64');
    const c = await open(t);
    c.socket.write(
      `POST /api/v1/payments/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${auth}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
    );
    const trickle = setInterval(() => {
      if (!c.socket.destroyed) c.socket.write('{');
    }, 300);
    try {
      const elapsed = await c.closed;
      expect(elapsed).toBeLessThan(6_000);
      expect(elapsed).toBeGreaterThanOrEqual(1_500);
    } finally {
      clearInterval(trickle);
    }
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(c.received()).toMatch(/content-type: application\/problem\+json/i);
    const body = JSON.parse(c.received().split('\r\n\r\n')[1] ?? '{}');
    expect(body).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT', responseCode: '20000408' });
  });

  it('headers trickled a line at a time are cut after KASSA_HEADERS_TIMEOUT', async () => {
    const c = await open(t);
    c.socket.write('GET /healthz HTTP/1.1\r\n');
    const trickle = setInterval(() => {
      if (!c.socket.destroyed) c.socket.write('X-A: b\r\n');
    }, 200);
    try {
      expect(await c.closed).toBeLessThan(4_000);
    } finally {
      clearInterval(trickle);
    }
  });

  // 431 (RFC 6585 §5) as problem+json, not Node's bare answer.
  it('headers over 16 KiB get 431 problem+json', async () => {
    const c = await open(t);
    c.socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 431 /);
    expect(c.received()).toMatch(/content-type: application\/problem\+json/i);
    const body = JSON.parse(c.received().split('\r\n\r\n')[1] ?? '{}');
    expect(body).toMatchObject({
      status: 431,
      code: 'HEADERS_TOO_LARGE',
      responseCode: '20000431',
      detail: expect.stringContaining('too large'),
    });
  });
});

describe('KASSA_MAX_CONNECTIONS', () => {
  let t: TestKassa;
  beforeAll(async () => {
    t = await startTestKassa('sqlite', {}, { KASSA_MAX_CONNECTIONS: '2' });
  });
  afterAll(async () => t?.close());

  it('a connection beyond the cap is closed at once; the open ones keep working', async () => {
    const first = await open(t);
    const second = await open(t);
    const third = await open(t).then(
      (c) => c.closed.then(() => 'closed'),
      () => 'refused',
    );
    expect(third).toMatch(/closed|refused/);
    first.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await first.closed;
    expect(first.received()).toMatch(/^HTTP\/1\.1 200 /);
    second.socket.destroy();
  });
});
