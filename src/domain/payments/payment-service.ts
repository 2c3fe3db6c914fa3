/**
 * The card payment operations behind one object, as services.ts builds it once and the HTTP routes, the 3-D Secure pages
 * and the background jobs call it. Each operation lives in its own file and takes the same deps:
 * - create-payment.ts: DIRECT creation, getByPayId, getByTransId;
 * - authorize-payment.ts: 3-D Secure as 3DS Server and authorization (finish-payment.ts ends every payment);
 * - three-ds-browser-steps.ts: the 3DS Method, continuation, challenge and challenge-notification steps;
 * - three-ds-results.ts: the RReq handler and the expiry sweep of abandoned authentications;
 * - return-url.ts: where the browser goes at the end.
 */
import type { Merchant } from '../merchants/merchant.js';
import type { ResultsRequest, ResultsResponse, ThreeDSErrorMessage } from '../threeds/three-ds-messages.js';
import { type AuthenticationCommand, authenticateAndAuthorize } from './authorize-payment.js';
import { createDirectPayment, getByPayId, getByTransId } from './create-payment.js';
import type { Payment } from './payment.js';
import type { PaymentServiceDeps } from './payment-deps.js';
import type { CardInput, CreatePaymentCommand } from './payment-request.js';
import {
  challengeNotification,
  challengeStep,
  continueAfterThreeDSMethod,
  recordThreeDSMethodCompletion,
  startBrowserAuthentication,
  type ThreeDSBrowserStep,
  threeDSMethodStep,
} from './three-ds-browser-steps.js';
import {
  expireAbandonedAuthentications,
  handleResultsRequest,
  pruneFinishedAuthentications,
} from './three-ds-results.js';

export type { PaymentServiceDeps } from './payment-deps.js';

/**
 * Card payments: creation, reads and 3-D Secure. Every operation runs validate → load → decide → persist → call out →
 * persist result, and persists before calling a simulator or network (so a crash leaves a PENDING payment, never an
 * unrecorded authorization). See the files named above for each operation's rules and errors.
 */
export class PaymentService {
  constructor(private readonly deps: PaymentServiceDeps) {}

  /** See create-payment.ts. @throws KassaError VALIDATION_FAILED, CARD_BRAND_NOT_SUPPORTED, TRANS_ID_IN_USE. */
  createDirectPayment(merchant: Merchant, cmd: CreatePaymentCommand): Promise<Payment> {
    return createDirectPayment(this.deps, merchant, cmd);
  }

  /** See three-ds-browser-steps.ts: PENDING 60010003 with `redirectHref` to the 3DS Method page. */
  startBrowserAuthentication(
    merchant: Merchant,
    pending: Payment,
    card: CardInput,
    cmd: Pick<AuthenticationCommand, 'browserInfo' | 'challengePreference'>,
  ): Promise<Payment> {
    return startBrowserAuthentication(this.deps, merchant, pending, card, cmd);
  }

  /** See authorize-payment.ts. */
  authenticateAndAuthorize(
    merchant: Merchant,
    pending: Payment,
    card: CardInput,
    cmd: AuthenticationCommand,
    threeDSCompInd?: 'Y' | 'N' | 'U',
  ): Promise<Payment> {
    return authenticateAndAuthorize(this.deps, merchant, pending, card, cmd, threeDSCompInd);
  }

  /** See three-ds-results.ts: the RRes, or an EMVCo Erro; never throws for a bad RReq. */
  handleResultsRequest(rreq: ResultsRequest): Promise<ResultsResponse | ThreeDSErrorMessage> {
    return handleResultsRequest(this.deps, rreq);
  }

  threeDSMethodStep(payId: string, token: unknown): Promise<ThreeDSBrowserStep> {
    return threeDSMethodStep(this.deps, payId, token);
  }

  recordThreeDSMethodCompletion(payId: string, threeDSMethodData: unknown): Promise<boolean> {
    return recordThreeDSMethodCompletion(this.deps, payId, threeDSMethodData);
  }

  continueAfterThreeDSMethod(payId: string, token: unknown): Promise<ThreeDSBrowserStep> {
    return continueAfterThreeDSMethod(this.deps, payId, token);
  }

  challengeStep(payId: string, token: unknown): Promise<ThreeDSBrowserStep> {
    return challengeStep(this.deps, payId, token);
  }

  challengeNotification(payId: string, cres: unknown): Promise<ThreeDSBrowserStep> {
    return challengeNotification(this.deps, payId, cres);
  }

  /** See three-ds-results.ts. @returns how many payments it ended. Safe on every node. */
  expireAbandonedAuthentications(limit = 100): Promise<number> {
    return expireAbandonedAuthentications(this.deps, limit);
  }

  /** See three-ds-results.ts. @returns how many finished authentications' states it deleted. Safe on every node. */
  pruneFinishedAuthentications(): Promise<number> {
    return pruneFinishedAuthentications(this.deps);
  }

  /**
   * `read`: the payment `findByPayId(merchantId, payId)` answers, when the caller read it already (with the
   * credentials check, in the same statement: issue 12); it is then not read again.
   * @throws KassaError PAYMENT_NOT_FOUND for a missing payment and for another merchant's payment alike.
   */
  getByPayId(merchantId: string, payId: string, read?: { payment: Payment | undefined }): Promise<Payment> {
    return getByPayId(this.deps, merchantId, payId, read);
  }

  /**
   * The latest payment with this transId (DESIGN.md §4); `read`, when given, is what findLatestByTransId answered
   * alongside the credentials check (see getByPayId). @throws KassaError PAYMENT_NOT_FOUND.
   */
  getByTransId(merchantId: string, transId: string, read?: { payment: Payment | undefined }): Promise<Payment> {
    return getByTransId(this.deps, merchantId, transId, read);
  }
}
