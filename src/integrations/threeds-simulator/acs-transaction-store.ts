import type { DeviceChannel, MessageVersion } from '../../domain/threeds/three-ds-messages.js';
import type { SimulatorScheme } from './simulator-card-ranges.js';

/**
 * What the simulated ACS remembers of a transaction that needs a follow-up (challenge C or decoupled D), so that
 * the challenge pages and the RReq can finish it later.
 */
export interface AcsTransaction {
  acsTransID: string;
  dsTransID: string;
  threeDSServerTransID: string;
  messageVersion: MessageVersion;
  deviceChannel: DeviceChannel;
  scheme: SimulatorScheme;
  /** Test-card scenario digits (DESIGN.md §6), e.g. 1005. */
  scenario: string;
  /** transStatus of the ARes. */
  transStatus: 'C' | 'D';
  acsChallengeMandated: boolean;
  /** Browser: where the CRes goes (EMVCo notificationURL of the AReq). */
  notificationURL?: string;
  /** Where the RReq goes (EMVCo threeDSServerURL of the AReq), when the 3DS Server sent one. */
  threeDSServerURL?: string;
  /** App: the SDK's transaction id. */
  sdkTransID?: string;
  /** App: the SDK's ephemeral public key (EC P-256 JWK), for the ECDH of the app challenge. */
  sdkEphemPubKey?: Record<string, unknown>;
  /** App: the ACS's ephemeral EC P-256 private key (JWK, with `d`), whose public half went into acsSignedContent. */
  acsEphemPrivateJwk?: Record<string, unknown>;
  /** Browser: the AReq's browserLanguage (BCP 47), the language of the challenge page. */
  browserLanguage?: string;
  /** What the challenge page shows of the purchase (AReq merchantName, purchaseAmount/Currency/Exponent, cardholderName). */
  purchase?: {
    merchantName: string;
    /** Minor units. */
    amount: string;
    /** ISO 4217 numeric. */
    currency: string;
    exponent: string;
    cardholderName?: string;
  };
  /** When the ARes was produced (from the Clock port). */
  createdAt: Date;
}

/** Where the simulated ACS keeps its transactions, keyed by acsTransID. Small on purpose; bring your own. */
export interface AcsTransactionStore {
  save(transaction: AcsTransaction): void;
  /** The transaction, or undefined when unknown (or already removed). */
  find(acsTransID: string): AcsTransaction | undefined;
  remove(acsTransID: string): void;
}

/** A process-local AcsTransactionStore. Fine for one node; the simulator is a sandbox tool. */
export class InMemoryAcsTransactionStore implements AcsTransactionStore {
  readonly #transactions = new Map<string, AcsTransaction>();

  save(transaction: AcsTransaction): void {
    this.#transactions.set(transaction.acsTransID, transaction);
  }

  find(acsTransID: string): AcsTransaction | undefined {
    return this.#transactions.get(acsTransID);
  }

  remove(acsTransID: string): void {
    this.#transactions.delete(acsTransID);
  }

  /** Number of transactions held (for tests and metrics). */
  get size(): number {
    return this.#transactions.size;
  }
}
