import type {
  AuthenticationRequest,
  AuthenticationResponseMessage,
  CardRangeData,
  ThreeDSErrorMessage,
} from '../threeds/three-ds-messages.js';

/**
 * A 3-D Secure directory server, as Kassa the 3DS Server sees it (EMV 3DS: 3DS Server ↔ DS).
 * Implemented by the built-in simulator (`SimulatorDirectoryServer`); a real DS connection would be another adapter.
 */
export interface DirectoryServer {
  /**
   * The card range that holds `acctNumber` (the PReq/PRes cache of a real 3DS Server), or undefined when the
   * card is not enrolled in any range of this DS. Never throws for an unknown card.
   */
  cardRange(acctNumber: string): Promise<CardRangeData | undefined>;
  /**
   * Sends an AReq and returns the ARes, or an EMVCo Error message when the DS or ACS rejects the request.
   * Throws only on transport failure.
   */
  authenticate(areq: AuthenticationRequest): Promise<AuthenticationResponseMessage | ThreeDSErrorMessage>;
}
