import { createPublicKey, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import { CompactSign, type JWK } from 'jose';
import type { Clock } from '../../domain/ports/clock.js';
import type { CallOptions } from '../../domain/ports/deadline.js';
import type { DirectoryServer } from '../../domain/ports/directory-server.js';
import { UUID_PATTERN } from '../../domain/ports/id-generator.js';
import { randomPool } from '../../domain/ports/random-pool.js';
import type { ResultsRequestHandler } from '../../domain/threeds/results-request.js';
import {
  type AuthenticationRequest,
  type AuthenticationResponseMessage,
  type CardRangeData,
  type MessageVersion,
  type ResultsRequest,
  SUPPORTED_MESSAGE_VERSIONS,
  type ThreeDSErrorMessage,
  type TransStatus,
} from '../../domain/threeds/three-ds-messages.js';
import { type AcsTransaction, type AcsTransactionStore, InMemoryAcsTransactionStore } from './acs-transaction-store.js';
import {
  findSimulatorCardRange,
  SIMULATOR_CARD_RANGES,
  SIMULATOR_SCENARIOS,
  type SimulatorCardRange,
  type SimulatorScheme,
  scenarioOf,
} from './simulator-card-ranges.js';

/** EMVCo acsReferenceNumber of every simulated ACS (max 32 characters). */
export const SIMULATOR_ACS_REFERENCE_NUMBER = 'KASSA-SIMULATED-ACS';
/** EMVCo dsReferenceNumber of the simulated DS (max 32 characters). */
export const SIMULATOR_DS_REFERENCE_NUMBER = 'KASSA-SIMULATED-DS';
/** EMVCo acsOperatorID the simulated DS assigns to its ACSs (max 32 characters). */
export const SIMULATOR_ACS_OPERATOR_ID = 'KASSA-SIM-ACS-OPERATOR';

/** Text the simulated ACS shows the cardholder during a decoupled authentication (EMVCo cardholderInfo, ≤ 128). */
export const SIMULATOR_DECOUPLED_CARDHOLDER_INFO =
  'Open your Kassa Sandbox Bank app and approve this purchase to complete it.';

/** The simulated ACS's JWS signing key (ES256, EC P-256). */
export interface SimulatorAcsSigningKey {
  /** EC P-256 private key. */
  privateKey: KeyObject;
  /** JWS `kid` header; defaults to a fixed simulator id. */
  kid?: string;
}

/** Options of SimulatorDirectoryServer. */
export interface SimulatorDirectoryServerOptions {
  /** Kassa's public base URL (https in production); simulator pages are mounted under `${publicUrl}/simulator/…`. */
  publicUrl: string;
  clock: Clock;
  /** Signs app-channel acsSignedContent. Default: a fresh EC P-256 key generated at construction. */
  acsSigningKey?: SimulatorAcsSigningKey;
  /** Where the ACS keeps C and D transactions. Default: an InMemoryAcsTransactionStore. */
  transactions?: AcsTransactionStore;
  /**
   * The 3DS Server's results endpoint: where the DS delivers RReqs (EMVCo threeDSServerURL). Kassa registers its
   * own in services.ts (in process, as a real DS would POST it); also settable later with `setResultsHandler`.
   */
  onResultsRequest?: ResultsRequestHandler;
  /** How long after a decoupled ARes (D) the issuer "approves" and the RReq is sent, ms. Default 3000 (3 s). */
  decoupledDelayMs?: number;
  /** Pause between RReq delivery attempts when the 3DS Server refuses or fails, ms (5 attempts). Default 500. */
  resultsRetryDelayMs?: number;
  /**
   * Whether the ACS's 3DS Method page calls back the threeDSMethodNotificationURL. Default true; false simulates an
   * ACS whose method never completes, so the 3DS Server sends threeDSCompInd N (docs/3ds.md).
   */
  methodCallback?: boolean;
}

/** The one-time code that passes the simulated ACS's challenge (DESIGN.md §6: scenario 1005/1006). */
export const SIMULATOR_CHALLENGE_OTP = '1234';

/** What the cardholder did on a simulated challenge: typed a code, or pressed Cancel. */
export type SimulatorChallengeAction = { otp: string } | { cancel: true };

/** The end of a simulated challenge: the CRes for the browser or SDK, and the RRes/Erro Kassa answered the RReq with. */
export interface SimulatorChallengeResult {
  transaction: AcsTransaction;
  rreq: ResultsRequest;
  /** The final CRes (EMVCo): what the ACS sends back through the browser (base64url form field) or to the SDK. */
  cres: {
    threeDSServerTransID: string;
    acsTransID: string;
    messageType: 'CRes';
    messageVersion: string;
    challengeCompletionInd: 'Y';
    transStatus: 'Y' | 'N';
    sdkTransID?: string;
  };
}

/** What the simulated issuer decides for a scenario before the AReq's channel is applied. */
interface Decision {
  transStatus: TransStatus;
  transStatusReason?: string;
  acsChallengeMandated?: 'Y' | 'N';
}

const ECI: Record<SimulatorScheme, { Y: string; A: string; I: string; other: string }> = {
  VISA: { Y: '05', A: '06', I: '07', other: '07' },
  MASTERCARD: { Y: '02', A: '01', I: '06', other: '00' },
};

const UUID = UUID_PATTERN;
const versionIndex = (v: string) => SUPPORTED_MESSAGE_VERSIONS.indexOf(v as MessageVersion);

/**
 * The built-in directory server with one simulated ACS per BIN range of DESIGN.md §6 (an ordinary DirectoryServer
 * adapter; the domain never knows it is simulated). Outcomes are chosen by the test card's scenario digits.
 * The ACS remembers C and D transactions in `transactions`; its pages (3DS Method, browser challenge, app challenge)
 * are served by simulatorAcsRoutes (simulator-acs-routes.ts), and it sends the final RReq to `onResultsRequest`.
 */
export class SimulatorDirectoryServer implements DirectoryServer {
  readonly #publicUrl: string;
  readonly #clock: Clock;
  readonly #signingKey: KeyObject;
  readonly #kid: string;
  readonly #transactions: AcsTransactionStore;
  #onResultsRequest: ResultsRequestHandler | undefined;
  readonly #decoupledDelayMs: number;
  readonly #resultsRetryDelayMs: number;
  readonly #methodCallback: boolean;
  /** threeDSServerTransID → when the ACS's 3DS Method page ran for it (the "device data" it collected). */
  readonly #methods = new Map<string, Date>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopped = false;

  constructor(options: SimulatorDirectoryServerOptions) {
    this.#publicUrl = options.publicUrl.replace(/\/+$/, '');
    this.#clock = options.clock;
    this.#signingKey =
      options.acsSigningKey?.privateKey ?? generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    this.#kid = options.acsSigningKey?.kid ?? 'kassa-simulated-acs-1';
    this.#transactions = options.transactions ?? new InMemoryAcsTransactionStore();
    this.#onResultsRequest = options.onResultsRequest;
    this.#decoupledDelayMs = options.decoupledDelayMs ?? 3000;
    this.#resultsRetryDelayMs = options.resultsRetryDelayMs ?? 500;
    this.#methodCallback = options.methodCallback ?? true;
  }

  /** Sets the 3DS Server's results endpoint (when it can only be built after the simulator, as in services.ts). */
  setResultsHandler(handler: ResultsRequestHandler): void {
    this.#onResultsRequest = handler;
  }

  /** Whether the ACS's method page calls back (SimulatorDirectoryServerOptions.methodCallback). */
  get methodCallback(): boolean {
    return this.#methodCallback;
  }

  /** Records that the ACS's 3DS Method page ran for a 3DS Server transaction (the simulated device fingerprint). */
  recordMethod(threeDSServerTransID: string): void {
    this.#methods.set(threeDSServerTransID, this.#clock.now());
    // A sandbox tool: keep the map bounded.
    if (this.#methods.size > 10_000) this.#methods.delete(this.#methods.keys().next().value as string);
  }

  /** When the ACS's 3DS Method page ran for `threeDSServerTransID`, if it did. */
  methodRanAt(threeDSServerTransID: string): Date | undefined {
    return this.#methods.get(threeDSServerTransID);
  }

  /** Cancels pending decoupled results and RReq retries (on shutdown). */
  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  /**
   * Finishes a challenge the way the cardholder did it on the ACS's page (browser) or in the SDK's native UI (app):
   * the one-time code SIMULATOR_CHALLENGE_OTP → Y; any other code → N reason 01 (card authentication failed);
   * Cancel → N reason 26 (authentication attempted but not performed) with challengeCancel 01 (DESIGN.md §6).
   * Sends the RReq to the 3DS Server first (the result Kassa acts on), then returns the CRes for the browser or SDK.
   * @returns undefined when `acsTransID` names no open challenge of `deviceChannel`.
   */
  async completeChallenge(
    acsTransID: string,
    deviceChannel: '01' | '02',
    action: SimulatorChallengeAction,
  ): Promise<SimulatorChallengeResult | undefined> {
    const transaction = this.#transactions.find(acsTransID);
    if (transaction === undefined || transaction.transStatus !== 'C' || transaction.deviceChannel !== deviceChannel) {
      return undefined;
    }
    this.#transactions.remove(acsTransID);
    const passed = 'otp' in action && action.otp === SIMULATOR_CHALLENGE_OTP;
    const rreq = this.#resultsRequestFor(
      transaction,
      passed ? { transStatus: 'Y' } : { transStatus: 'N', transStatusReason: 'cancel' in action ? '26' : '01' },
      'cancel' in action,
    );
    await this.#deliverResults(rreq);
    return {
      transaction,
      rreq,
      cres: {
        threeDSServerTransID: transaction.threeDSServerTransID,
        acsTransID: transaction.acsTransID,
        messageType: 'CRes',
        messageVersion: transaction.messageVersion,
        challengeCompletionInd: 'Y',
        transStatus: passed ? 'Y' : 'N',
        ...(transaction.sdkTransID !== undefined && { sdkTransID: transaction.sdkTransID }),
      },
    };
  }

  /** The final RReq of a transaction (EMVCo RReq fields; ECI per scheme, 28-character authenticationValue for Y). */
  #resultsRequestFor(
    transaction: AcsTransaction,
    outcome: { transStatus: 'Y' } | { transStatus: 'N'; transStatusReason: string },
    cancelled: boolean,
  ): ResultsRequest {
    const eci = ECI[transaction.scheme];
    const rreq: ResultsRequest = {
      messageType: 'RReq',
      messageVersion: transaction.messageVersion,
      threeDSServerTransID: transaction.threeDSServerTransID,
      acsTransID: transaction.acsTransID,
      dsTransID: transaction.dsTransID,
      messageCategory: '01',
      transStatus: outcome.transStatus,
      eci: outcome.transStatus === 'Y' ? eci.Y : eci.other,
      authenticationType: transaction.transStatus === 'D' ? '04' : '02',
      interactionCounter: '01',
    };
    if (outcome.transStatus === 'Y') rreq.authenticationValue = randomPool.bytes(20).toString('base64');
    else rreq.transStatusReason = outcome.transStatusReason;
    if (cancelled) rreq.challengeCancel = '01';
    return rreq;
  }

  /**
   * Delivers an RReq to the 3DS Server, retrying (5 attempts, resultsRetryDelayMs apart) when it answers an Erro or
   * fails, as a DS retries until it gets an RRes. Never throws.
   */
  async #deliverResults(rreq: ResultsRequest, attempt = 1): Promise<void> {
    const handler = this.#onResultsRequest;
    if (handler === undefined || this.#stopped) return;
    let delivered = false;
    try {
      delivered = (await handler(rreq)).messageType === 'RRes';
    } catch {
      delivered = false;
    }
    if (delivered || attempt >= 5) return;
    await new Promise<void>((resolve) => this.#schedule(resolve, this.#resultsRetryDelayMs));
    if (!this.#stopped) await this.#deliverResults(rreq, attempt + 1);
  }

  #schedule(work: () => void, delayMs: number): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      work();
    }, delayMs);
    timer.unref();
    this.#timers.add(timer);
  }

  /** The ACS transactions awaiting a challenge or decoupled result (for the challenge pages and RReq). */
  get transactions(): AcsTransactionStore {
    return this.#transactions;
  }

  /** The public JWK (with `kid`, `alg` ES256, `use` sig) that verifies the simulated ACS's acsSignedContent. */
  acsVerificationKey(): JWK {
    const jwk = createPublicKey(this.#signingKey).export({ format: 'jwk' }) as JWK;
    return { ...jwk, kid: this.#kid, alg: 'ES256', use: 'sig' };
  }

  /**
   * EMVCo cardRangeData of the range holding `acctNumber` (BIN = first 8 digits), or undefined outside every range.
   * All ACSs start at 2.1.0; the 40000001 range has no 3DS Method URL, the others `${publicUrl}/simulator/acs/method`.
   */
  async cardRange(acctNumber: string): Promise<CardRangeData | undefined> {
    const range = findSimulatorCardRange(acctNumber);
    return range === undefined ? undefined : this.#cardRangeData(range);
  }

  /** Every range, as a PRes would list them (for docs and tests). */
  cardRanges(): CardRangeData[] {
    return SIMULATOR_CARD_RANGES.map((range) => this.#cardRangeData(range));
  }

  /**
   * Answers an AReq as DS + ACS: an Erro (errorComponent D) when the AReq is invalid (201 missing element, 203
   * invalid element, 102 version outside the ACS's range, 305 card outside every range); otherwise the ARes of the
   * card's scenario (DESIGN.md §6). A requestor mandate (challengeInd 04) turns a frictionless Y into C.
   */
  async authenticate(
    areq: AuthenticationRequest,
    options?: CallOptions,
  ): Promise<AuthenticationResponseMessage | ThreeDSErrorMessage> {
    // Given up before it was sent (DeadlineDirectoryServer): no ACS sees it, no transaction or RReq follows.
    options?.signal?.throwIfAborted();
    const range = findSimulatorCardRange(String(areq.acctNumber));
    const dsTransID = randomUUID();
    const erro = this.#checkAReq(areq, range, dsTransID);
    if (erro !== undefined) return erro;
    // #checkAReq guarantees the range exists.
    const cardRange = range as SimulatorCardRange;
    const scenario = scenarioOf(areq.acctNumber);
    const decision = decide(scenario, areq);
    const app = areq.deviceChannel === '01';
    const eci = ECI[cardRange.scheme];

    const ares: AuthenticationResponseMessage = {
      messageType: 'ARes',
      messageVersion: areq.messageVersion,
      threeDSServerTransID: areq.threeDSServerTransID,
      acsTransID: randomUUID(),
      dsTransID,
      acsReferenceNumber: SIMULATOR_ACS_REFERENCE_NUMBER,
      dsReferenceNumber: SIMULATOR_DS_REFERENCE_NUMBER,
      acsOperatorID: SIMULATOR_ACS_OPERATOR_ID,
      transStatus: decision.transStatus,
    };
    if (app && areq.sdk !== undefined) ares.sdkTransID = areq.sdk.sdkTransID;
    if (decision.transStatusReason !== undefined) ares.transStatusReason = decision.transStatusReason;
    const status = decision.transStatus;
    ares.eci = status === 'Y' || status === 'A' || status === 'I' ? eci[status] : eci.other;
    if (status === 'Y' || status === 'A' || status === 'I') {
      // 20 random bytes, standard Base64: 28 characters (a CAVV/AAV-shaped value).
      ares.authenticationValue = randomPool.bytes(20).toString('base64');
    }

    if (status === 'C') {
      ares.acsChallengeMandated = decision.acsChallengeMandated ?? 'N';
      ares.authenticationType = '02';
      const acsURL = `${this.#publicUrl}/simulator/acs/challenge`;
      let acsEphemPrivateJwk: Record<string, unknown> | undefined;
      if (app && areq.sdk !== undefined) {
        const ephemeral = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
        acsEphemPrivateJwk = ephemeral.privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
        const acsEphemPubKey = ephemeral.publicKey.export({ format: 'jwk' });
        ares.acsRenderingType = { acsInterface: 'native', acsUiTemplate: 'text' };
        ares.acsSignedContent = await this.#sign({ acsURL, acsEphemPubKey, sdkEphemPubKey: areq.sdk.sdkEphemPubKey });
      } else {
        ares.acsURL = acsURL;
      }
      this.#remember(ares, areq, cardRange, scenario, acsEphemPrivateJwk);
    } else if (status === 'D') {
      ares.acsChallengeMandated = 'N';
      ares.acsDecConInd = 'Y';
      ares.authenticationType = '04';
      ares.cardholderInfo = SIMULATOR_DECOUPLED_CARDHOLDER_INFO;
      this.#remember(ares, areq, cardRange, scenario, undefined);
      // The issuer's app approves after a while; then the ACS sends the RReq (EMVCo decoupled flow).
      const acsTransID = ares.acsTransID;
      this.#schedule(() => {
        const transaction = this.#transactions.find(acsTransID);
        if (transaction === undefined) return;
        this.#transactions.remove(acsTransID);
        void this.#deliverResults(this.#resultsRequestFor(transaction, { transStatus: 'Y' }, false));
      }, this.#decoupledDelayMs);
    }
    return ares;
  }

  #cardRangeData(range: SimulatorCardRange): CardRangeData {
    const data: CardRangeData = {
      startRange: `${range.bin}00000000`,
      endRange: `${range.bin}99999999`,
      acsStartProtocolVersion: '2.1.0',
      acsEndProtocolVersion: range.acsMaxVersion,
    };
    if (range.hasThreeDSMethod) data.threeDSMethodURL = `${this.#publicUrl}/simulator/acs/method`;
    return data;
  }

  /** acsSignedContent: a compact JWS (ES256, `kid` header) over the app challenge's keys and URL (EMVCo ARes). */
  async #sign(payload: Record<string, unknown>): Promise<string> {
    return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'ES256', kid: this.#kid })
      .sign(this.#signingKey);
  }

  #remember(
    ares: AuthenticationResponseMessage,
    areq: AuthenticationRequest,
    range: SimulatorCardRange,
    scenario: string,
    acsEphemPrivateJwk: Record<string, unknown> | undefined,
  ): void {
    this.#transactions.save({
      acsTransID: ares.acsTransID,
      dsTransID: ares.dsTransID,
      threeDSServerTransID: ares.threeDSServerTransID,
      messageVersion: ares.messageVersion,
      deviceChannel: areq.deviceChannel,
      scheme: range.scheme,
      scenario,
      transStatus: ares.transStatus === 'D' ? 'D' : 'C',
      acsChallengeMandated: ares.acsChallengeMandated === 'Y',
      ...(areq.notificationURL === undefined ? {} : { notificationURL: areq.notificationURL }),
      ...(areq.threeDSServerURL === undefined ? {} : { threeDSServerURL: areq.threeDSServerURL }),
      ...(areq.sdk === undefined ? {} : { sdkTransID: areq.sdk.sdkTransID, sdkEphemPubKey: areq.sdk.sdkEphemPubKey }),
      ...(acsEphemPrivateJwk === undefined ? {} : { acsEphemPrivateJwk }),
      ...(areq.browser?.browserLanguage === undefined ? {} : { browserLanguage: areq.browser.browserLanguage }),
      purchase: {
        merchantName: areq.merchantName,
        amount: areq.purchaseAmount,
        currency: areq.purchaseCurrency,
        exponent: areq.purchaseExponent,
        ...(areq.cardholderName === undefined ? {} : { cardholderName: areq.cardholderName }),
      },
      createdAt: this.#clock.now(),
    });
  }

  /** DS-side AReq checks (EMV 3DS AReq field rules); undefined when the AReq is acceptable. */
  #checkAReq(
    areq: AuthenticationRequest,
    range: SimulatorCardRange | undefined,
    dsTransID: string,
  ): ThreeDSErrorMessage | undefined {
    const raw = areq as unknown as Record<string, unknown>;
    const erro = (errorCode: string, errorDescription: string, fields: string[]): ThreeDSErrorMessage => ({
      messageType: 'Erro',
      messageVersion: typeof raw.messageVersion === 'string' ? raw.messageVersion : '2.2.0',
      threeDSServerTransID: typeof raw.threeDSServerTransID === 'string' ? raw.threeDSServerTransID : '',
      errorCode,
      errorComponent: 'D',
      errorDescription,
      errorDetail: fields.join(','),
      errorMessageType: 'AReq',
      dsTransID,
    });

    if (raw.messageType !== 'AReq') return erro('101', 'Message received invalid', ['messageType']);
    if (versionIndex(String(raw.messageVersion)) < 0) {
      return erro('102', 'Message version number not supported', ['messageVersion']);
    }
    const missing: string[] = [];
    const invalid: string[] = [];
    const need = (field: string, pattern: RegExp, from: Record<string, unknown> = raw, prefix = '') => {
      const v = from[field];
      if (v === undefined || v === '') missing.push(prefix + field);
      else if (typeof v !== 'string' || !pattern.test(v)) invalid.push(prefix + field);
    };
    const any = /^.{1,2048}$/s;
    need('threeDSServerTransID', UUID);
    need('threeDSServerRefNumber', /^.{1,32}$/);
    need('threeDSRequestorURL', /^https?:\/\/\S{1,2040}$/);
    // 01–04 in 2.1.0; 2.2.0 adds 05–09 (TRA performed, data share only, SCA performed, whitelist).
    need(
      'threeDSRequestorChallengeInd',
      versionIndex(String(raw.messageVersion)) >= versionIndex('2.2.0') ? /^0[1-9]$/ : /^0[1-4]$/,
    );
    need('deviceChannel', /^0[12]$/);
    need('messageCategory', /^01$/);
    need('acctNumber', /^\d{13,19}$/);
    need('cardExpiryDate', /^\d{2}(0[1-9]|1[0-2])$/);
    need('purchaseAmount', /^\d{1,48}$/);
    need('purchaseCurrency', /^\d{3}$/);
    need('purchaseExponent', /^\d$/);
    need('purchaseDate', /^\d{14}$/);
    need('merchantName', /^.{1,40}$/s);
    need('merchantCountryCode', /^\d{3}$/);
    need('acquirerMerchantID', /^.{1,35}$/s);
    if (raw.cardholderName !== undefined) need('cardholderName', /^.{2,45}$/s);
    // EMVCo: threeDSRequestorAuthenticationInd is required for payment authentication; recurringExpiry and
    // recurringFrequency are required with 02 (recurring) and 03 (instalment), purchaseInstalData (> 1) with 03.
    need('threeDSRequestorAuthenticationInd', /^0[1-6]$/);
    if (raw.threeDSRequestorAuthenticationInd === '02' || raw.threeDSRequestorAuthenticationInd === '03') {
      need('recurringExpiry', /^\d{4}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/);
      need('recurringFrequency', /^[1-9]\d{0,3}$/);
    }
    if (raw.threeDSRequestorAuthenticationInd === '03') need('purchaseInstalData', /^(?:[2-9]|[1-9]\d{1,2})$/);
    if (raw.deviceChannel === '02') {
      need('threeDSCompInd', /^[YNU]$/);
      need('notificationURL', /^https?:\/\/\S{1,250}$/);
      const browser = raw.browser as Record<string, unknown> | undefined;
      if (browser === undefined) missing.push('browser');
      else {
        need('browserAcceptHeader', any, browser);
        need('browserLanguage', /^.{1,8}$/, browser);
        need('browserUserAgent', any, browser);
        // EMVCo browserColorDepth: one of the listed bit depths.
        if (browser.browserColorDepth !== undefined) need('browserColorDepth', /^(1|4|8|15|16|24|32|48)$/, browser);
        if (typeof browser.browserJavascriptEnabled !== 'boolean') missing.push('browserJavascriptEnabled');
      }
    } else if (raw.deviceChannel === '01') {
      const sdk = raw.sdk as Record<string, unknown> | undefined;
      if (sdk === undefined) missing.push('sdk');
      else {
        need('sdkAppID', UUID, sdk);
        need('sdkTransID', UUID, sdk);
        need('sdkReferenceNumber', /^.{1,32}$/, sdk);
        need('sdkMaxTimeout', /^(0[5-9]|[1-9]\d)$/, sdk);
        const key = sdk.sdkEphemPubKey as Record<string, unknown> | undefined;
        if (key === undefined) missing.push('sdkEphemPubKey');
        else if (key.kty !== 'EC' || key.crv !== 'P-256' || typeof key.x !== 'string' || typeof key.y !== 'string') {
          invalid.push('sdkEphemPubKey');
        }
      }
    }
    if (missing.length > 0) return erro('201', 'Required data element missing', missing);
    if (invalid.length > 0) return erro('203', 'Format or value of one or more data elements is invalid', invalid);
    if (range === undefined) {
      return erro('305', 'Transaction data not valid: card account number not in a participating range', [
        'acctNumber',
      ]);
    }
    if (versionIndex(areq.messageVersion) > versionIndex(range.acsMaxVersion)) {
      return erro('102', `Message version number not supported by the ACS (2.1.0 to ${range.acsMaxVersion})`, [
        'messageVersion',
      ]);
    }
    return undefined;
  }
}

/**
 * The issuer's decision for a scenario (DESIGN.md §6). D and I exist from 2.2.0 (EMVCo): on 2.1.0 a decoupled card
 * answers U reason 23 (decoupled required but not requested) and an informational card answers a frictionless Y.
 */
function decide(scenario: string, areq: AuthenticationRequest): Decision {
  const v220 = versionIndex(areq.messageVersion) >= versionIndex('2.2.0');
  const S = SIMULATOR_SCENARIOS;
  switch (scenario) {
    case S.ATTEMPTS:
      return { transStatus: 'A' };
    case S.NOT_AUTHENTICATED:
      return { transStatus: 'N', transStatusReason: '01' };
    case S.UNAVAILABLE:
      return { transStatus: 'U', transStatusReason: '08' };
    case S.REJECTED:
      return { transStatus: 'R', transStatusReason: '11' };
    case S.CHALLENGE:
      return { transStatus: 'C', acsChallengeMandated: 'N' };
    case S.CHALLENGE_MANDATED:
      return { transStatus: 'C', acsChallengeMandated: 'Y' };
    case S.DECOUPLED:
      return v220 ? { transStatus: 'D' } : { transStatus: 'U', transStatusReason: '23' };
    case S.INFORMATIONAL:
      if (v220) return { transStatus: 'I' };
      return frictionless(areq);
    default:
      return frictionless(areq);
  }
}

/** A frictionless card: Y, unless the requestor mandates a challenge (threeDSRequestorChallengeInd 04). */
function frictionless(areq: AuthenticationRequest): Decision {
  return areq.threeDSRequestorChallengeInd === '04'
    ? { transStatus: 'C', acsChallengeMandated: 'N' }
    : { transStatus: 'Y' };
}

/** The public JWK verifying `simulator`'s acsSignedContent (see SimulatorDirectoryServer#acsVerificationKey). */
export function simulatorAcsVerificationKey(simulator: SimulatorDirectoryServer): JWK {
  return simulator.acsVerificationKey();
}
