import type { AttemptOutcome, AttemptRecord, ClaimedNotification } from '../domain/notifications/notification.js';
import { isDeliveredStatus, nextAttemptAt } from '../domain/notifications/retry-schedule.js';
import type { Clock } from '../domain/ports/clock.js';
import type { NotificationRepository } from '../domain/ports/store.js';
import type { WebhookSender } from './webhook-sender.js';

/** Most attempts recorded in one transaction. */
const MAX_RECORD_BATCH = 200;

/** Where the dispatcher reports what it cannot hand to anyone else (a pino logger fits). */
export interface DispatcherLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface OutboxDispatcherOptions {
  repository: NotificationRepository;
  sender: WebhookSender;
  clock: Clock;
  /** How often to look for due events when nothing woke the dispatcher, in milliseconds. */
  pollIntervalMs: number;
  /** Most deliveries in flight at once (per process). */
  concurrency: number;
  /**
   * A failed attempt that took at least this long, in milliseconds (or ended without an answer: timeout, connection
   * failed), marks its merchant as struggling: one delivery at a time until an attempt succeeds. Default 2000.
   */
  slowAttemptMs?: number;
  /**
   * How long a struggling merchant's claimed notifications wait, unattempted, while one of its deliveries is in
   * flight, in milliseconds of `clock`. Default 30 000.
   */
  deferMs?: number;
  /** How long a claim lasts, in milliseconds; must exceed the delivery timeout, or a slow attempt is taken over. */
  leaseMs: number;
  /** Uniform in [0, 1): jitter of the retry schedule. */
  random: () => number;
  log?: DispatcherLog;
  /** Called after every delivery attempt with what it led to (metrics). */
  onAttempt?: (outcome: AttemptOutcome['status']) => void;
}

/**
 * The outbox dispatcher (DESIGN.md §5) that runs inside every `kassa serve` process: claims due notifications,
 * signs and sends them, and records every attempt with the next step of the retry schedule. Claims are leases in the
 * database, so a process that dies mid-delivery loses nothing: its claims expire and any dispatcher takes them over
 * (at-least-once; receivers dedupe by `webhook-id`).
 *
 * Fairness between merchants: a merchant whose receiver stops answering would hold every delivery slot for the whole
 * timeout, round after round, while other merchants' events wait (the notifications review measured 70 s behind 30
 * hanging payments). Once one of its attempts fails slowly or without an answer (`slowAttemptMs`), the merchant is
 * struggling until one of its notifications is delivered: of its notifications a claim takes, one is delivered when
 * none of its is in flight, and the others are put back unattempted, due again `deferMs` later (so its backlog stays
 * out of the way of the claims in due order, at one write per notification per `deferMs`). A healthy merchant may use
 * every slot. State of this process only: each node learns it from its own attempts.
 */
export class OutboxDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private ticking: Promise<void> | undefined;
  private again = false;
  /** Finished attempts waiting to be recorded; written in batches (group commit: one durable commit for many). */
  private readonly unrecorded: { record: AttemptRecord; done: () => void }[] = [];
  private flushing: Promise<void> | undefined;
  /** Struggling merchants (see the class comment). */
  private readonly struggling = new Set<string>();
  /** Deliveries in flight per merchant. */
  private readonly inFlightOf = new Map<string, number>();

  constructor(private readonly options: OutboxDispatcherOptions) {}

  /** Starts polling (idempotent). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.wake();
  }

  /** Looks for due events now instead of at the next poll (called after a request that may have written some). */
  wake(): void {
    if (!this.running) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.loop().finally(() => {
      this.ticking = undefined;
      this.schedule();
    });
  }

  /** Stops claiming and waits for the deliveries in flight to finish and be recorded (graceful shutdown). */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.ticking;
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * One pass without the timer: claims what is due at the clock's now (up to the concurrency bound) and waits for
   * every delivery to be recorded. For tests with a controllable clock and for tools.
   * @returns how many notifications were attempted.
   */
  async runOnce(): Promise<number> {
    const { deliver } = await this.claim(this.options.concurrency);
    await Promise.all(deliver.map((c) => this.deliver(c)));
    return deliver.length;
  }

  /**
   * Claims up to `limit` due notifications: `deliver`, those to deliver now, and `claimed`, how many were claimed; a
   * struggling merchant's beyond the one it may have in flight are deferred (see the class comment). A failed deferral
   * leaves them claimed until their lease expires: attempted later, never lost.
   */
  private async claim(limit: number): Promise<{ deliver: ClaimedNotification[]; claimed: number }> {
    const { repository, clock, leaseMs, deferMs = 30_000, log } = this.options;
    const now = clock.now();
    const claims = await repository.claimDue(now, new Date(now.getTime() + leaseMs), limit);
    if (this.struggling.size === 0) return { deliver: claims, claimed: claims.length };
    const deliver: ClaimedNotification[] = [];
    const deferred: ClaimedNotification[] = [];
    const probing = new Set<string>();
    for (const c of claims) {
      const idle = (this.inFlightOf.get(c.merchantId) ?? 0) === 0 && !probing.has(c.merchantId);
      if (!this.struggling.has(c.merchantId)) deliver.push(c);
      else if (idle) {
        probing.add(c.merchantId);
        deliver.push(c);
      } else deferred.push(c);
    }
    if (deferred.length > 0) {
      try {
        await repository.defer(deferred, new Date(now.getTime() + deferMs));
      } catch (error) {
        log?.error({ err: error, notificationIds: deferred.map((c) => c.id) }, 'could not defer notifications');
      }
    }
    return { deliver, claimed: claims.length };
  }

  private schedule(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), this.again ? 0 : this.options.pollIntervalMs);
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      const free = this.options.concurrency - this.inFlight.size;
      // Each claim is a durable write: while deliveries run, claim only once half the slots are free (a finishing
      // delivery wakes the loop), so that claims come in batches rather than one commit per event.
      if (free <= 0 || (this.inFlight.size > 0 && free < Math.ceil(this.options.concurrency / 2))) return;
      let claims: ClaimedNotification[];
      let claimed: number;
      try {
        ({ deliver: claims, claimed } = await this.claim(free));
      } catch (error) {
        this.options.log?.error({ err: error }, 'notification claim failed; retrying at the next poll');
        return;
      }
      for (const claim of claims) {
        const p = this.deliver(claim).finally(() => {
          this.inFlight.delete(p);
          this.wake();
        });
        this.inFlight.add(p);
      }
      if (claimed === free) this.again = true; // more may be due (deferred ones count: they were claimed)
    } while (this.again && this.running);
  }

  private async deliver(claim: ClaimedNotification): Promise<void> {
    const { clock, sender, random, log, slowAttemptMs = 2_000 } = this.options;
    const attemptedAt = clock.now();
    this.inFlightOf.set(claim.merchantId, (this.inFlightOf.get(claim.merchantId) ?? 0) + 1);
    let result: Awaited<ReturnType<WebhookSender['send']>>;
    try {
      result = await sender.send(claim, attemptedAt);
    } finally {
      const left = (this.inFlightOf.get(claim.merchantId) ?? 1) - 1;
      if (left > 0) this.inFlightOf.set(claim.merchantId, left);
      else this.inFlightOf.delete(claim.merchantId);
    }
    const attemptsMade = claim.attemptCount + 1;
    let outcome: AttemptOutcome;
    if (result.httpStatus !== undefined && isDeliveredStatus(result.httpStatus)) {
      outcome = { status: 'DELIVERED' };
      this.struggling.delete(claim.merchantId);
    } else {
      if (result.httpStatus === undefined || result.durationMs >= slowAttemptMs) {
        this.struggling.add(claim.merchantId);
      }
      const next = nextAttemptAt(attemptsMade, clock.now(), random);
      outcome = next ? { status: 'PENDING', nextAttemptAt: next } : { status: 'FAILED' };
      log?.info(
        {
          notificationId: claim.id,
          attemptsMade,
          httpStatus: result.httpStatus,
          error: result.error,
          detail: result.detail,
          outcome,
        },
        'notification delivery attempt failed',
      );
    }
    this.options.onAttempt?.(outcome.status);
    await new Promise<void>((done) => {
      this.unrecorded.push({
        record: {
          claim,
          attempt: { attemptedAt, httpStatus: result.httpStatus, error: result.error, durationMs: result.durationMs },
          outcome,
        },
        done,
      });
      this.flush();
    });
  }

  /** Records every finished attempt queued so far in one transaction, then the ones that finished meanwhile. */
  private flush(): void {
    if (this.flushing) return;
    const { repository, log } = this.options;
    this.flushing = (async () => {
      while (this.unrecorded.length > 0) {
        const batch = this.unrecorded.splice(0, MAX_RECORD_BATCH);
        try {
          await repository.recordAttempts(batch.map((b) => b.record));
        } catch (error) {
          // The claims expire and the events are attempted again: at-least-once, never lost.
          log?.error({ err: error, notificationIds: batch.map((b) => b.record.claim.id) }, 'could not record attempts');
        }
        for (const b of batch) b.done();
      }
    })().finally(() => {
      this.flushing = undefined;
    });
  }
}
