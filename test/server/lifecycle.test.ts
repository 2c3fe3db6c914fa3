import { connect, type TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

/**
 * A kept-alive TLS connection to the test server, read as raw HTTP/1.1; `serverRead()` counts the bytes the server
 * side has read from it (its 'data' listener runs after the HTTP parser's, so the parser has seen them).
 */
async function openConnection(
  t: TestKassa,
): Promise<{ socket: TLSSocket; received: () => string; serverRead: () => number; closed: Promise<void> }> {
  let serverRead = 0;
  t.kassa.app.server.once('secureConnection', (serverSocket: TLSSocket) => {
    serverSocket.on('data', (chunk: Buffer) => {
      serverRead += chunk.length;
    });
  });
  const url = new URL(t.url);
  const socket = connect({ host: url.hostname, port: Number(url.port), ca: t.ca });
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => text, serverRead: () => serverRead, closed };
}

/** The status, headers and body of the one answer in `text`. */
function parseAnswer(text: string) {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/**
 * A request that arrives on a kept-alive connection once the server is closing: its head is sent in two parts, the
 * first before close begins (the connection is then not idle, so closing keeps it), the rest once the server stopped
 * listening.
 */
async function requestWhileClosing(t: TestKassa, beginClose: () => Promise<void>) {
  const { socket, received, serverRead, closed: socketClosed } = await openConnection(t);
  const first = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n';
  socket.write(first);
  await vi.waitFor(() => expect(received()).toContain('{"status":"ok"}'));
  const before = received().length;
  const head = 'GET /api/v1/payments/getByPayId/0123456789abcdef0123456789abcdef HTTP/1.1\r\nHost: 127.0.0.1\r\n';
  socket.write(head);
  await vi.waitFor(() => expect(serverRead()).toBe(first.length + head.length));
  const closed = beginClose();
  await vi.waitFor(() => expect(t.kassa.app.server.listening).toBe(false));
  socket.write('Connection: keep-alive\r\n\r\n');
  await vi.waitFor(() => expect(received().length).toBeGreaterThan(before));
  await socketClosed;
  await closed;
  return parseAnswer(received().slice(before));
}

describe('requests arriving while Kassa closes (DESIGN.md §9)', () => {
  let t: TestKassa | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it.each([
    ['Kassa.close()', (k: TestKassa) => k.kassa.close()],
    ['app.close() alone', (k: TestKassa) => k.kassa.app.close()],
  ])(
    'after %s, a request on a kept-alive connection is refused 503 SERVICE_UNAVAILABLE problem+json with connection: close',
    async (_name, beginClose) => {
      const kassa = await startTestKassa('sqlite');
      t = kassa;
      const answer = await requestWhileClosing(kassa, () => beginClose(kassa));
      expect(answer.status).toBe(503);
      expect(answer.headers['content-type']).toContain('application/problem+json');
      expect(answer.headers.connection).toBe('close');
      expect(JSON.parse(answer.body)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    },
  );
});
