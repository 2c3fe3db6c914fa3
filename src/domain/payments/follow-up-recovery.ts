import { type ErrorCode, KassaError } from '../errors/error-catalogue.js';
import type { AcquirerFollowUpResult } from '../ports/acquirer.js';
import { type FollowUpService, type FollowUpServiceDeps, recordFollowUpResult } from './follow-up-service.js';

/**
 * The result of a PENDING follow-up the acquirer has no record of: FAILED, response 96 (system error → 40020096), its
 * reservation released. `pendingAfterMs` must exceed the acquirer call's timeout, so that a call still on its way is
 * never judged "not received".
 */
const NOT_RECEIVED: AcquirerFollowUpResult = {
  outcome: 'DECLINED',
  acquirerReference: '',
  responseCode: '96',
  message: 'Not received by the acquirer',
};

/** Timing of the recovery and DELAYED-capture sweeps. Milliseconds. */
export interface FollowUpRecoverySettings {
  /** A PENDING operation younger than this is left to the request that created it (default 30 s). */
  pendingAfterMs: number;
  /** How long a sweep's claim on an operation or a due capture holds (default 2 min). */
  leaseMs: number;
  /** At most this many operations or captures per sweep (default 100). */
  batch: number;
}

export const DEFAULT_FOLLOW_UP_RECOVERY: FollowUpRecoverySettings = {
  pendingAfterMs: 30_000,
  leaseMs: 120_000,
  batch: 100,
};

/** Refusals that end an automatic capture: the payment changed (or another capture is pending) meanwhile. */
const NOT_CAPTURABLE_NOW = new Set<ErrorCode>(['PAYMENT_NOT_CAPTURABLE', 'CAPTURE_EXCEEDS_AUTHORIZED']);

/** What one sweep did. */
export interface SweepReport {
  /** Operations (or DELAYED payments) completed. */
  done: number;
  /** Claimed but not completed this time (acquirer or database unreachable): retried once the claim expires. */
  failed: number;
}

/**
 * The background half of write-ahead follow-ups (issue 9 defect 3) and of DELAYED capture (paygate-v2-wire.md §2).
 * Both sweeps run on every node at once: a claim (PostgreSQL `FOR UPDATE SKIP LOCKED`, SQLite's single writer) is a
 * lease, so each operation or payment is acted on by one node at a time, and one that dies holding a claim only
 * delays the work. Times come from the settable Clock.
 */
export class FollowUpRecovery {
  private readonly settings: FollowUpRecoverySettings;

  constructor(
    private readonly deps: FollowUpServiceDeps,
    private readonly followUps: Pick<FollowUpService, 'capture'>,
    settings: Partial<FollowUpRecoverySettings> = {},
  ) {
    this.settings = { ...DEFAULT_FOLLOW_UP_RECOVERY, ...settings };
  }

  /**
   * Resolves PENDING follow-ups older than `pendingAfterMs`: asks the acquirer for the result of the operation's xId
   * (`Acquirer.inquire`, the status lookup) and records it exactly as the request would have (OK → totals and event;
   * FAILED → reservation released). One the acquirer never received is FAILED (40020096): it moved no money, and
   * sending it late could apply a follow-up the merchant was told failed and has retried. An operation it cannot
   * resolve now (acquirer or database unreachable) stays PENDING and is claimed again after the lease.
   */
  async recoverPending(): Promise<SweepReport> {
    const { store, clock, acquirer } = this.deps;
    const now = clock.now();
    const claims = await store.followUpOperations.claimPending(
      new Date(now.getTime() - this.settings.pendingAfterMs),
      now,
      new Date(now.getTime() + this.settings.leaseMs),
      this.settings.batch,
    );
    const report: SweepReport = { done: 0, failed: 0 };
    for (const claim of claims) {
      try {
        const merchant = await store.merchants.find(claim.merchantId);
        const payment = await store.payments.findByPayId(claim.merchantId, claim.payId);
        const operation = payment?.operations.find((op) => op.xId === claim.xId);
        if (!merchant || !payment || !operation) throw new Error(`claimed operation ${claim.xId} has no payment`);
        if (operation.status !== 'PENDING') continue;
        // Never received by the acquirer: it did not happen. Never sent late: the request that recorded it may have
        // answered an error, and the merchant may have retried it under a new operation.
        const result: AcquirerFollowUpResult = (await acquirer.inquire(claim.xId)) ?? NOT_RECEIVED;
        await recordFollowUpResult(this.deps, merchant, claim.payId, claim.xId, result);
        report.done++;
      } catch (error) {
        report.failed++;
        this.deps.onUnknownOutcome?.(claim.xId, 'record', error);
      }
    }
    return report;
  }

  /**
   * Captures DELAYED payments whose time has come (authorized + `delayedHours`), in full, through the same
   * write-ahead capture as a merchant's (payment.captured follows). A payment captured or reversed before has no
   * schedule any more; one that cannot be captured now (another follow-up pending) gets its schedule cleared, and a
   * PENDING automatic capture is resolved by `recoverPending`.
   */
  async captureDue(): Promise<SweepReport> {
    const { store, clock } = this.deps;
    const now = clock.now();
    const claims = await store.followUpOperations.claimDueCaptures(
      now,
      new Date(now.getTime() + this.settings.leaseMs),
      this.settings.batch,
    );
    const report: SweepReport = { done: 0, failed: 0 };
    for (const claim of claims) {
      try {
        const merchant = await store.merchants.find(claim.merchantId);
        const payment = await store.payments.findByPayId(claim.merchantId, claim.payId);
        if (!merchant || !payment) throw new Error(`scheduled capture of ${claim.payId} has no payment`);
        const rest = payment.value - payment.capturedValue;
        if (payment.status !== 'AUTHORIZED' || rest <= 0) {
          await store.followUpOperations.scheduleCapture(claim.payId, undefined);
          continue;
        }
        const outcome = await this.followUps.capture(merchant, claim.payId, {
          transId: payment.transId,
          amount: { value: rest, currency: payment.currency },
        });
        // OK clears the schedule in the capture's own transaction; a decline ends the automatic capture.
        if (outcome.operation.status === 'FAILED')
          await store.followUpOperations.scheduleCapture(claim.payId, undefined);
        report.done++;
      } catch (error) {
        if (error instanceof KassaError && NOT_CAPTURABLE_NOW.has(error.code)) {
          await store.followUpOperations.scheduleCapture(claim.payId, undefined);
          continue;
        }
        report.failed++;
        this.deps.onUnknownOutcome?.(claim.payId, 'record', error);
      }
    }
    return report;
  }
}
