import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { ClaimedNotification } from '../domain/notifications/notification.js';
import { checkTargetUrl, guardedLookup, type ResolveAll, SsrfRefusedError } from './ssrf-guard.js';
import { signWebhook } from './webhook-signer.js';

/** The result of one delivery attempt: the HTTP status, or the error (network, timeout, SSRF refusal). */
export interface SendResult {
  httpStatus?: number;
  /**
   * What the merchant's delivery log shows: `address not allowed`, `connection failed` or `timeout: …`, never an
   * address, a resolved name or a socket error code (they would map Kassa's network for whoever reads the log).
   */
  error?: string;
  /** The internal cause of `error` (socket error code, refused address): for the server log only. */
  detail?: string;
  /** Milliseconds, measured on the monotonic clock. */
  durationMs: number;
}

/** Sends one signed notification. The port the dispatcher delivers through; tests may bring their own. */
export interface WebhookSender {
  /** Never throws: every failure is a SendResult with `error`. `at` is the `webhook-timestamp`. */
  send(notification: ClaimedNotification, at: Date): Promise<SendResult>;
  close(): Promise<void>;
}

export interface UndiciWebhookSenderOptions {
  /**
   * The answer's status line and headers must arrive within this many milliseconds (DESIGN.md §5: a 2xx within the
   * time is success); its body is read and ignored until then at most (a body never finished does not undo a 2xx).
   */
  timeoutMs: number;
  resolveAll: ResolveAll;
  /** Ports no notification may reach (the database's, Redis's): `checkTargetUrl`. */
  forbiddenPorts?: readonly number[];
  userAgent?: string;
}

/** Texts of the merchant's delivery log. */
export const DELIVERY_ERRORS = {
  refused: 'address not allowed',
  failed: 'connection failed',
} as const;

/**
 * The merchant-facing error of a failed attempt and its internal detail (the innermost message of the error chain:
 * undici wraps socket errors). A refused target and a closed port read alike to the merchant only when refused:
 * blocked targets are never connected to, so nothing about them (403 of a metadata service, ECONNREFUSED of a closed
 * port) can show.
 */
function describeError(error: unknown, timeoutMs: number): { error: string; detail: string } {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (e instanceof SsrfRefusedError) return { error: DELIVERY_ERRORS.refused, detail: `refused: ${e.message}` };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') {
      const text = `timeout: no complete answer within ${timeoutMs} ms`;
      return { error: text, detail: text };
    }
    if (!e.cause) break;
    e = e.cause;
  }
  const err = e as { code?: string; message?: string };
  return { error: DELIVERY_ERRORS.failed, detail: [err.code, err.message].filter(Boolean).join(': ') || String(e) };
}

/**
 * Delivers over undici: POST of the stored JSON with the Standard Webhooks headers. Production merchants go through
 * an agent whose connections only reach addresses the SSRF guard accepted; sandbox merchants may reach http, loopback
 * and private addresses, never link-local (metadata) ones. Redirects are not followed (a 3xx is a failed attempt).
 */
export class UndiciWebhookSender implements WebhookSender {
  private readonly guarded: Agent;
  private readonly sandbox: Agent;

  constructor(private readonly options: UndiciWebhookSenderOptions) {
    const agent = (allowPrivate: boolean) =>
      new Agent({
        connect: { lookup: guardedLookup(allowPrivate, options.resolveAll), timeout: options.timeoutMs },
        keepAliveTimeout: 4_000, // ms
        connections: 32, // per origin
      });
    this.guarded = agent(false);
    this.sandbox = agent(true);
  }

  async send(n: ClaimedNotification, at: Date): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    try {
      const url = new URL(n.targetUrl);
      checkTargetUrl(url, n.sandbox, this.options.forbiddenPorts);
      const res = await request(url, {
        method: 'POST',
        dispatcher: n.sandbox ? this.sandbox : this.guarded,
        headers: {
          'content-type': 'application/json',
          'user-agent': this.options.userAgent ?? 'Kassa-Webhooks/1.0',
          ...signWebhook(n.webhookSecret, n.id, at, n.body, n.previousWebhookSecret),
        },
        body: n.body,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      await res.body.dump({ limit: 64 * 1024 }); // bytes: the answer's content is ignored
      return { httpStatus: res.statusCode, durationMs: elapsed() };
    } catch (error) {
      return { ...describeError(error, this.options.timeoutMs), durationMs: elapsed() };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.guarded.close(), this.sandbox.close()]);
  }
}
