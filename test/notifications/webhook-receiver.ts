import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';

/** What the receiver does with the next request: answer with a status, or hang (never answer). */
export type ReceiverMode = number | 'hang';

/** One request as the receiver saw it. */
export interface ReceivedWebhook {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.timeOrigin-based wall time in ms (Date.now()) of arrival. */
  at: number;
  /** What the receiver meant to do. */
  answered: ReceiverMode;
  /** The status actually written to a live connection (undefined: never answered, or the client was gone). */
  sent?: number;
}

/** A real local HTTP receiver (DESIGN.md's test rule: receivers are real servers), on 127.0.0.1 only. */
export interface TestReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Modes for the next requests, in order; afterwards `fallback` applies. */
  script: ReceiverMode[];
  fallback: ReceiverMode;
  /** Delay before answering, in ms. */
  delayMs: number;
  /** Resolves when `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** Successful (2xx answers written to a live connection) deliveries per webhook-id. */
  deliveredCounts(): Map<string, number>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<TestReceiver> {
  const hanging = new Set<import('node:http').ServerResponse>();
  const receiver: Omit<TestReceiver, 'url' | 'port' | 'close'> & { server?: Server } = {
    received: [],
    script: [],
    fallback: 200,
    delayMs: 0,
    async waitFor(count, timeoutMs = 20_000) {
      await vi.waitFor(
        () => {
          if (receiver.received.length < count) throw new Error(`receiver got ${receiver.received.length} of ${count}`);
        },
        { timeout: timeoutMs, interval: 10 },
      );
    },
    deliveredCounts() {
      const counts = new Map<string, number>();
      for (const r of receiver.received) {
        if (r.sent !== undefined && r.sent < 300) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
      }
      return counts;
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const mode = req.url === path ? (receiver.script.shift() ?? receiver.fallback) : 404;
      const record: ReceivedWebhook = {
        id: String(req.headers['webhook-id']),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        answered: mode,
      };
      receiver.received.push(record);
      if (mode === 'hang') {
        hanging.add(res);
        return;
      }
      const answer = () => {
        if (res.destroyed || req.socket.destroyed) return;
        res.writeHead(mode).end('ok');
        record.sent = mode;
      };
      if (receiver.delayMs > 0) {
        const timer = setTimeout(answer, receiver.delayMs);
        hanging.add(res);
        res.on('close', () => clearTimeout(timer));
      } else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    port,
    url: `http://127.0.0.1:${port}${path}`,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }) as TestReceiver;
}
