import type {
  AuthenticationRequest,
  AuthenticationResponseMessage,
  CardRangeData,
  ThreeDSErrorMessage,
} from '../threeds/three-ds-messages.js';
import type { CallOptions } from './deadline.js';

/**
 * A 3-D Secure directory server, as Kassa the 3DS Server sees it (EMV 3DS: 3DS Server ↔ DS).
 * Implemented by the built-in simulator (`SimulatorDirectoryServer`); a real DS connection would be another adapter.
 * Kassa holds every call to a deadline (DeadlineDirectoryServer, DIRECTORY_SERVER_TIMEOUT_MS = 10 s) and then aborts
 * its `signal` (CallOptions), with the timeout error as the reason: an adapter passes it to its HTTP client so the
 * request and its socket are given up; an answer that comes anyway is dropped.
 */
export interface DirectoryServer {
  /**
   * The card range that holds `acctNumber` (the PReq/PRes cache of a real 3DS Server), or undefined when the
   * card is not enrolled in any range of this DS. Never throws for an unknown card.
   */
  cardRange(acctNumber: string, options?: CallOptions): Promise<CardRangeData | undefined>;
  /**
   * Sends an AReq and returns the ARes, or an EMVCo Error message when the DS or ACS rejects the request.
   * Throws only on transport failure (a timeout included).
   */
  authenticate(
    areq: AuthenticationRequest,
    options?: CallOptions,
  ): Promise<AuthenticationResponseMessage | ThreeDSErrorMessage>;
}
