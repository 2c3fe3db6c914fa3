import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendProblem } from '../http/problem.js';

/** How long `drain()` waits for requests still being handled, in milliseconds. */
export const SHUTDOWN_DRAIN_MS = 10_000; // 10 s

/**
 * How long a served process keeps its connections after a stop signal before it closes idle ones: requests already
 * sent on them (or still in their TLS handshake) get a clean 503 with `connection: close` instead of a reset.
 */
export const SHUTDOWN_GRACE_MS = 1_000; // 1 s

/** Graceful shutdown of one server (DESIGN.md §9): stop accepting, let the requests being handled answer. */
export interface Lifecycle {
  /** True once `close()` of the Kassa began: new requests are refused with 503. */
  readonly closing: boolean;
  /** Refuse new requests from now on (503, `connection: close`). */
  beginClosing(): void;
  /** Waits `ms` while closing (requests still arrive and get 503); returns early once no connection is open. */
  grace(ms: number): Promise<void>;
  /** Resolves when every request being handled has answered, or after `timeoutMs`. */
  drain(timeoutMs?: number): Promise<void>;
}

/**
 * Registers the hooks that count the requests being handled. Call before any other `onRequest` hook, so a request
 * arriving while closing is refused before it touches anything.
 *
 * Counted until the handler has answered (onSend), not until the socket closes: a client that aborts leaves its
 * handler running, and that handler must still find the database open. Once closing, a request arriving on a
 * kept-alive connection gets 503 and `connection: close`, never the database.
 *
 * The Fastify instance must be built with `return503OnClosing: false`: Fastify's own 503 while it closes is
 * `application/json` in its own shape, and every API error is problem+json (DESIGN.md §4). Closing begins with
 * `beginClosing()` or, when `app.close()` is called alone, with Fastify's preClose, so the refusal holds either way.
 */
export function trackRequests(app: FastifyInstance): Lifecycle {
  // The requests themselves, not their ids: a Set of objects hashes by identity, a Set of strings hashes each new id.
  const inFlight = new Set<FastifyRequest>();
  let closing = false;
  // Callback hooks: an async one costs a promise and a microtask per request (issue 12).
  app.addHook('onRequest', (request, reply, done) => {
    if (closing) {
      reply.header('connection', 'close');
      // Answered: the request goes no further (a callback hook that sends does not call done).
      sendProblem(request, reply, 'SERVICE_UNAVAILABLE', 'Kassa is shutting down; retry');
      return;
    }
    inFlight.add(request);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    inFlight.delete(request);
    // While closing, the client must not reuse the connection: the server can only finish closing once it ends.
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    inFlight.delete(request);
    done();
  });
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  return {
    get closing() {
      return closing;
    },
    beginClosing() {
      closing = true;
    },
    async grace(ms) {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline && (await openConnections(app)) > 0) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async drain(timeoutMs = SHUTDOWN_DRAIN_MS) {
      const deadline = Date.now() + timeoutMs;
      while (inFlight.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
}

function openConnections(app: FastifyInstance): Promise<number> {
  return new Promise((resolve) => {
    if (!app.server.listening) return resolve(0);
    app.server.getConnections((error, count) => resolve(error ? 0 : count));
  });
}
