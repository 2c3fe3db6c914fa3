import type {
  Acquirer,
  AcquirerAuthorizationInquiry,
  AcquirerAuthorizationRequest,
  AcquirerAuthorizationResult,
  AcquirerCallOptions,
  AcquirerFollowUpRequest,
  AcquirerFollowUpResult,
} from '../ports/acquirer.js';
import { callWithin } from '../ports/deadline.js';

/**
 * How long Kassa waits for any acquirer call (default 20 s, milliseconds). Below both recovery sweeps' pending ages
 * (follow-ups 30 s, authorizations 2 min: follow-up-recovery.ts, authorization-recovery.ts), so that a call still
 * waiting is never met by the sweep that asks the acquirer what became of it: an authorization whose request outlived
 * the sweep's lookup wrote its own answer over the sweep's. Card networks answer within seconds, or stand in for the
 * issuer (Visa STIP) well inside this.
 */
export const ACQUIRER_TIMEOUT_MS = 20_000;

/** An acquirer call that did not answer within its deadline: a transport failure, its outcome unknown. */
export class AcquirerTimeoutError extends Error {
  constructor(
    readonly call: keyof Acquirer,
    readonly timeoutMs: number,
  ) {
    super(`the acquirer did not answer ${call} within ${timeoutMs} ms`);
    this.name = 'AcquirerTimeoutError';
  }
}

/**
 * The Acquirer port with a deadline on every call: a call that has not answered after `timeoutMs` throws
 * AcquirerTimeoutError, which the callers take as any transport failure (the outcome is unknown: the authorization is
 * left PENDING 60020001, a follow-up PENDING, for the recovery sweeps to resolve by the acquirer's status lookup). At
 * the deadline the call's `signal` (AcquirerCallOptions) is aborted with that error as its reason, so an adapter gives
 * the request up; an answer that comes anyway is dropped. This holds Kassa to the sweeps' timing whatever the adapter
 * does (ports/acquirer.ts).
 */
export class DeadlineAcquirer implements Acquirer {
  constructor(
    private readonly acquirer: Acquirer,
    private readonly timeoutMs: number = ACQUIRER_TIMEOUT_MS,
  ) {}

  authorize(request: AcquirerAuthorizationRequest): Promise<AcquirerAuthorizationResult> {
    return this.#within('authorize', (options) => this.acquirer.authorize(request, options));
  }

  capture(request: AcquirerFollowUpRequest): Promise<AcquirerFollowUpResult> {
    return this.#within('capture', (options) => this.acquirer.capture(request, options));
  }

  refund(request: AcquirerFollowUpRequest): Promise<AcquirerFollowUpResult> {
    return this.#within('refund', (options) => this.acquirer.refund(request, options));
  }

  reverse(request: AcquirerFollowUpRequest): Promise<AcquirerFollowUpResult> {
    return this.#within('reverse', (options) => this.acquirer.reverse(request, options));
  }

  inquire(xId: string): Promise<AcquirerFollowUpResult | undefined> {
    return this.#within('inquire', (options) => this.acquirer.inquire(xId, options));
  }

  inquireAuthorization(payId: string): Promise<AcquirerAuthorizationInquiry | undefined> {
    return this.#within('inquireAuthorization', (options) => this.acquirer.inquireAuthorization(payId, options));
  }

  #within<T>(call: keyof Acquirer, send: (options: AcquirerCallOptions) => Promise<T>): Promise<T> {
    return callWithin(this.timeoutMs, send, () => new AcquirerTimeoutError(call, this.timeoutMs));
  }
}
