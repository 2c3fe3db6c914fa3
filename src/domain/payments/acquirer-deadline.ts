import type {
  Acquirer,
  AcquirerAuthorizationInquiry,
  AcquirerAuthorizationRequest,
  AcquirerAuthorizationResult,
  AcquirerFollowUpRequest,
  AcquirerFollowUpResult,
} from '../ports/acquirer.js';

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
 * left PENDING 60020001, a follow-up PENDING, for the recovery sweeps to resolve by the acquirer's status lookup). The
 * call itself is not cancelled (the port takes no signal): its late answer is dropped. The port asks adapters to time
 * out themselves (ports/acquirer.ts); this holds Kassa to the sweeps' timing whatever the adapter does.
 */
export class DeadlineAcquirer implements Acquirer {
  constructor(
    private readonly acquirer: Acquirer,
    private readonly timeoutMs: number = ACQUIRER_TIMEOUT_MS,
  ) {}

  authorize(request: AcquirerAuthorizationRequest): Promise<AcquirerAuthorizationResult> {
    return this.#within('authorize', () => this.acquirer.authorize(request));
  }

  capture(request: AcquirerFollowUpRequest): Promise<AcquirerFollowUpResult> {
    return this.#within('capture', () => this.acquirer.capture(request));
  }

  refund(request: AcquirerFollowUpRequest): Promise<AcquirerFollowUpResult> {
    return this.#within('refund', () => this.acquirer.refund(request));
  }

  reverse(request: AcquirerFollowUpRequest): Promise<AcquirerFollowUpResult> {
    return this.#within('reverse', () => this.acquirer.reverse(request));
  }

  inquire(xId: string): Promise<AcquirerFollowUpResult | undefined> {
    return this.#within('inquire', () => this.acquirer.inquire(xId));
  }

  inquireAuthorization(payId: string): Promise<AcquirerAuthorizationInquiry | undefined> {
    return this.#within('inquireAuthorization', () => this.acquirer.inquireAuthorization(payId));
  }

  #within<T>(call: keyof Acquirer, send: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // Unreferenced: a call's deadline alone does not keep a process alive (a server's socket does).
      const timer = setTimeout(() => reject(new AcquirerTimeoutError(call, this.timeoutMs)), this.timeoutMs).unref();
      send().then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }
}
