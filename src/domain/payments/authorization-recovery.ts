import type { AcquirerAuthorizationInquiry } from '../ports/acquirer.js';
import { authorizationOutcome } from './authorize-payment.js';
import { type FinishPaymentDeps, recordFinalPayment } from './finish-payment.js';
import type { SweepReport } from './follow-up-recovery.js';
import type { Payment } from './payment.js';
import type { PaymentServiceDeps } from './payment-deps.js';
import { responseCodeFromAcquirer } from './response-codes.js';
import { cardholderIndicator, storeCredential } from './stored-credential-payment.js';

/** The response codes of a payment whose authorization is in flight (response-codes.ts). */
export const IN_FLIGHT: ReadonlySet<string> = new Set(['60000001', '60020001']);

/**
 * The response code of an authorization the acquirer has no record of: it never reached the acquirer, so no money
 * moved. ISO 8583 96 (system malfunction), as for a follow-up that was never received (follow-up-recovery.ts).
 */
const NOT_RECEIVED = responseCodeFromAcquirer('96');

/** Timing of the sweep. Milliseconds. */
export interface AuthorizationRecoverySettings {
  /**
   * A payment in flight for less than this is left to the request that is authorizing it (default 2 min): longer
   * than a request can take, 3-D Secure's AReq and the acquirer call with their timeouts included, so a request still
   * on its way is never judged lost.
   */
  pendingAfterMs: number;
  /** At most this many payments per sweep (default 100). */
  batch: number;
}

export const DEFAULT_AUTHORIZATION_RECOVERY: AuthorizationRecoverySettings = { pendingAfterMs: 120_000, batch: 100 };

/**
 * Resolves payments a request left with their authorization in flight: PENDING 60000001 (the request died, or lost
 * its database, between the intent and the result: persist first, DESIGN.md §1) or 60020001 (the acquirer did not
 * answer). Without it such a payment stayed PENDING for good, its transId refused to a retry (TRANS_ID_IN_USE), while
 * the acquirer may have taken the money. For each, the acquirer's status lookup (`Acquirer.inquireAuthorization`)
 * says what happened, and it is recorded as the request would have recorded it (authorizeAtAcquirer): approved → OK or
 * AUTHORIZED with its operations and payment.authorized; declined → FAILED with the decline's code; never received →
 * FAILED 40020096 (no money moved; the transId is free again). An approval records the network's schemeReferenceId,
 * and an initial stored-credential payment's card is stored (storeCredential) from the card vault, where its intent
 * (or its 3-D Secure step, or the hosted card step) put it encrypted; if that card has expired (30 min) meanwhile, the
 * payment is recovered without a pseudo card number and the loss is reported (`onUnexpectedError`).
 * Every node sweeps (the follow-up sweep's interval); each payment is re-read under its row lock and changed only if
 * still in flight and unchanged since it was found, so two nodes, or a request that finishes late, resolve it once.
 */
export class AuthorizationRecovery {
  private readonly settings: AuthorizationRecoverySettings;

  constructor(
    private readonly deps: FinishPaymentDeps &
      Pick<PaymentServiceDeps, 'acquirer' | 'cardVault'> &
      Partial<Pick<PaymentServiceDeps, 'storedCards' | 'onUnexpectedError'>>,
    settings: Partial<AuthorizationRecoverySettings> = {},
  ) {
    this.settings = { ...DEFAULT_AUTHORIZATION_RECOVERY, ...settings };
  }

  /**
   * One sweep. A payment it cannot resolve now (acquirer or database unreachable) is counted `failed` and tried again
   * at the next sweep.
   */
  async recoverInFlight(): Promise<SweepReport> {
    const { store, clock, acquirer } = this.deps;
    const before = new Date(clock.now().getTime() - this.settings.pendingAfterMs);
    const report: SweepReport = { done: 0, failed: 0 };
    for (const found of await store.payments.findProcessingUpdatedBefore(before, this.settings.batch)) {
      try {
        const inquiry = await acquirer.inquireAuthorization(found.payId);
        if (await this.resolve(found, inquiry)) report.done++;
      } catch {
        report.failed++;
      }
    }
    return report;
  }

  /** Records the inquiry's answer for `found` if it is still as found, in one transaction. @returns whether it did. */
  private async resolve(found: Payment, inquiry: AcquirerAuthorizationInquiry | undefined): Promise<boolean> {
    // Approved: the card summary as the request would have recorded it (schemeReferenceId; an initial
    // stored-credential payment's pseudo card number, its card stored first, as authorizeAtAcquirer does: storing is
    // idempotent, so a request that finishes meanwhile and stores it too changes nothing).
    const approved =
      inquiry?.result.outcome === 'APPROVED'
        ? await this.credential(found, inquiry.result.schemeReferenceId)
        : undefined;
    const final = await this.deps.store.transaction(async (tx) => {
      const payment = await tx.payments.findByPayIdForUpdate(found.merchantId, found.payId);
      const merchant = await tx.merchants.find(found.merchantId);
      if (!payment || !merchant || payment.status !== 'PENDING' || !IN_FLIGHT.has(payment.responseCode)) return;
      if (payment.updatedAt.getTime() !== found.updatedAt.getTime()) return; // its request moved it meanwhile
      // Never received: no AUTHORIZATION reached the acquirer, so none is recorded.
      if (inquiry === undefined) return recordFinalPayment(tx, this.deps, merchant, payment, NOT_RECEIVED, []);
      const recorded = approved?.card === undefined ? payment : { ...payment, card: approved.card };
      const outcome = authorizationOutcome(this.deps, recorded, inquiry.xId, inquiry.result, inquiry.captured);
      return recordFinalPayment(tx, this.deps, merchant, outcome.payment, outcome.responseCode, outcome.operations);
    });
    if (final === undefined) return false;
    this.deps.onPaymentFinal?.(final);
    return true;
  }

  /** `found` with what an approval adds to it (storeCredential), its card read back from the card vault. */
  private async credential(found: Payment, schemeReferenceId: string | undefined): Promise<Payment> {
    const indicator = cardholderIndicator(found);
    const card =
      indicator?.sequence === 'INITIAL'
        ? await this.deps.cardVault.read(found.payId, this.deps.clock.now())
        : undefined;
    return storeCredential(this.deps, { merchantId: found.merchantId }, found, card, indicator, schemeReferenceId);
  }
}
