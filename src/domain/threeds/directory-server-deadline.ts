import { type CallOptions, callWithin } from '../ports/deadline.js';
import type { DirectoryServer } from '../ports/directory-server.js';
import type {
  AuthenticationRequest,
  AuthenticationResponseMessage,
  CardRangeData,
  ThreeDSErrorMessage,
} from './three-ds-messages.js';

/**
 * How long Kassa waits for the directory server's answer to an AReq or a card-range lookup (default 10 s,
 * milliseconds). A DS answers an AReq in a few seconds, the ACS's own wait included (a decoupled authentication answers
 * its ARes at once and its result later, in the RReq); card payment gateways proceed without authentication after
 * 10–12 s (no liability shift). Far below the authorization sweep's pending age (2 min,
 * authorization-recovery.ts): a payment whose request still waits for its ARes is never met by the sweep, which would
 * fail it (no acquirer record) and free its transId while the request could still go on to authorize it.
 */
export const DIRECTORY_SERVER_TIMEOUT_MS = 10_000;

/** A directory server call that did not answer within its deadline: a transport failure. */
export class DirectoryServerTimeoutError extends Error {
  constructor(
    readonly call: keyof DirectoryServer,
    readonly timeoutMs: number,
  ) {
    super(`the directory server did not answer ${call} within ${timeoutMs} ms`);
    this.name = 'DirectoryServerTimeoutError';
  }
}

/**
 * The DirectoryServer port with a deadline on every call: one that has not answered after `timeoutMs` throws
 * DirectoryServerTimeoutError, which the payment flows take as any transport failure (authentication could not be
 * performed: the payment FAILS 20010004 without reaching the acquirer), and aborts the call's signal with it.
 */
export class DeadlineDirectoryServer implements DirectoryServer {
  constructor(
    private readonly ds: DirectoryServer,
    private readonly timeoutMs: number = DIRECTORY_SERVER_TIMEOUT_MS,
  ) {}

  cardRange(acctNumber: string): Promise<CardRangeData | undefined> {
    return this.#within('cardRange', (options) => this.ds.cardRange(acctNumber, options));
  }

  authenticate(areq: AuthenticationRequest): Promise<AuthenticationResponseMessage | ThreeDSErrorMessage> {
    return this.#within('authenticate', (options) => this.ds.authenticate(areq, options));
  }

  #within<T>(call: keyof DirectoryServer, send: (options: CallOptions) => Promise<T>): Promise<T> {
    return callWithin(this.timeoutMs, send, () => new DirectoryServerTimeoutError(call, this.timeoutMs));
  }
}
