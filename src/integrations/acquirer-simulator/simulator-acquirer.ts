import { randomInt } from 'node:crypto';
import type {
  Acquirer,
  AcquirerAuthorizationInquiry,
  AcquirerAuthorizationRequest,
  AcquirerAuthorizationResult,
  AcquirerCallOptions,
  AcquirerFollowUpRequest,
  AcquirerFollowUpResult,
} from '../../domain/ports/acquirer.js';
import type { BinTable } from '../../domain/ports/bin-table.js';
import { isoTime } from '../../domain/ports/clock.js';
import { issueSchemeReferenceId, isValidSchemeReferenceId } from './scheme-reference.js';
import {
  MEMORY_LEDGER_CAPACITY,
  MemorySettlementLedger,
  type SettlementLedger,
  type SettlementRecord,
} from './settlement-ledger.js';

/**
 * Test-card scenario of a 16-digit sandbox PAN: the 4 digits before the Luhn check digit (DESIGN.md §6).
 */
export function scenarioDigits(pan: string): string {
  return pan.slice(-5, -1);
}

type Decline = { responseCode: string; message: string; merchantAdviceCode?: string };

/** Scenario digits → ISO 8583 response code of a decline (DESIGN.md §6: 1100 insufficient funds, 1101 do not honor). */
const DECLINES: Record<string, Decline> = {
  '1100': { responseCode: '51', message: 'Insufficient funds' },
  '1101': { responseCode: '05', message: 'Do not honor' },
};

/** 1200: the issuer approves the cardholder's payments but declines every merchant-initiated one ("do not honour"). */
const MIT_DO_NOT_HONOUR = '1200';
/** 1201: the issuer closed the stored credential: every payment made with it (MIT or one-click) is declined. */
const CREDENTIAL_CLOSED = '1201';

/**
 * How each network says "the stored credential was stopped": Visa answers R1 (revocation of authorization order);
 * Mastercard answers 05 with Merchant Advice Code 21 (payment cancellation).
 */
const CREDENTIAL_CLOSED_DECLINE: Record<'VISA' | 'MASTERCARD', Decline> = {
  VISA: { responseCode: 'R1', message: 'Revocation of authorization order' },
  MASTERCARD: { responseCode: '05', message: 'Do not honor', merchantAdviceCode: '21' },
};

/** Whether a card expiring at the end of `expiryDate` (YYYYMM) has expired at `now` (UTC). */
function hasExpired(expiryDate: string, now: Date): boolean {
  const current = now.getUTCFullYear() * 100 + now.getUTCMonth() + 1;
  return Number(expiryDate) < current;
}

/**
 * The sandbox acquirer: approves every test card of the BIN table except the decline scenarios, and declines
 * cards outside the BIN table with "14 invalid card number", as a sandbox declines live cards.
 * Like a network it declines an expired card with "54 expired card" (both schemes use 54), issues a
 * `schemeReferenceId` for every approval in the network's format (scheme-reference.ts), and refuses a
 * merchant-initiated payment whose `storedCredential.schemeReferenceId` is missing or was not issued for that card
 * with "12 invalid transaction".
 * Follow-ups (capture, refund, reversal) are approved: they carry no card number to pick a scenario by, and Kassa
 * itself enforces the amount limits before calling; only a capture after the final capture of its authorization
 * (Paygate `finishAuth: "Y"`, which released the rest) is declined "12 invalid transaction". Tests that need other
 * declined follow-ups pass their own Acquirer (AppOverrides.acquirer).
 * Follow-ups are idempotent by xId, like a real acquirer's idempotency key: a repeated xId answers the first result and
 * is booked once (the ledger is the memory, so this holds across nodes sharing a file ledger; an in-memory ledger
 * remembers its newest MEMORY_LEDGER_CAPACITY records); `inquire` is the status lookup.
 * Every approved message is written to a settlement ledger (in memory, or a file that several nodes share), as a
 * real acquirer keeps settlement records that a merchant reconciles against.
 */
export class SimulatorAcquirer implements Acquirer {
  constructor(
    private readonly bins: BinTable,
    readonly ledger: SettlementLedger = new MemorySettlementLedger(),
    private readonly now: () => Date = () => new Date(),
  ) {}

  async authorize(
    request: AcquirerAuthorizationRequest,
    options?: AcquirerCallOptions,
  ): Promise<AcquirerAuthorizationResult> {
    options?.signal?.throwIfAborted(); // given up before it was sent: nothing reaches the acquirer
    const acquirerReference = `SIM${request.xId.slice(0, 12).toUpperCase()}`;
    if (!this.bins.lookup(request.pan)) {
      return { outcome: 'DECLINED', acquirerReference, responseCode: '14', message: 'Invalid card number' };
    }
    const now = this.now();
    const decline = this.#decline(request, now);
    if (decline) {
      const declined: AcquirerAuthorizationResult = { outcome: 'DECLINED', acquirerReference, ...decline };
      this.#declinedAuthorizations.set(request.payId, { xId: request.xId, captured: false, result: declined });
      forgetOldest(this.#declinedAuthorizations);
      return declined;
    }
    const approved = {
      outcome: 'APPROVED',
      acquirerReference,
      authorizationCode: String(randomInt(0, 1_000_000)).padStart(6, '0'),
      responseCode: '00',
      schemeReferenceId: issueSchemeReferenceId(request.brand, request.pan, now),
    } as const;
    await this.settle(
      request.capture ? 'SALE' : 'AUTHORIZATION',
      {
        ...request,
        authorizationXId: request.xId,
        ...(request.statementDescriptor !== undefined && { statementDescriptor: request.statementDescriptor }),
        ...(request.exemption !== undefined && { exemption: request.exemption }),
        authorizationCode: approved.authorizationCode,
        ...(approved.schemeReferenceId !== undefined && { schemeReferenceId: approved.schemeReferenceId }),
      },
      acquirerReference,
    );
    return approved;
  }

  /**
   * The status lookup of a payment's authorization: the newest booked AUTHORIZATION or SALE of `payId` (the ledger), or
   * a declined one this process remembers (declines are never booked; the newest MEMORY_LEDGER_CAPACITY, in memory,
   * so a decline answered by another node sharing a file ledger is not known here and reads as never received).
   */
  async inquireAuthorization(payId: string): Promise<AcquirerAuthorizationInquiry | undefined> {
    const booked = (await this.ledger.records()).findLast(
      (r) => r.payId === payId && (r.type === 'AUTHORIZATION' || r.type === 'SALE'),
    );
    if (booked === undefined) return this.#declinedAuthorizations.get(payId);
    return {
      xId: booked.xId,
      captured: booked.type === 'SALE',
      result: {
        outcome: 'APPROVED',
        acquirerReference: booked.acquirerReference,
        authorizationCode: booked.authorizationCode ?? '',
        responseCode: '00',
        ...(booked.schemeReferenceId !== undefined && { schemeReferenceId: booked.schemeReferenceId }),
      },
    };
  }

  /** Declined authorizations (never booked), by payId: the newest MEMORY_LEDGER_CAPACITY. */
  readonly #declinedAuthorizations = new Map<string, AcquirerAuthorizationInquiry>();

  #decline(request: AcquirerAuthorizationRequest, now: Date): Decline | undefined {
    if (hasExpired(request.expiryDate, now)) return { responseCode: '54', message: 'Expired card' };
    const stored = request.storedCredential;
    const merchantInitiated = stored?.initiator === 'MERCHANT' && stored.sequence === 'SUBSEQUENT';
    if (
      merchantInitiated &&
      (stored.schemeReferenceId === undefined ||
        !isValidSchemeReferenceId(request.brand, request.pan, stored.schemeReferenceId))
    ) {
      return { responseCode: '12', message: 'Invalid transaction: no valid initial transaction id' };
    }
    const scenario = scenarioDigits(request.pan);
    if (scenario === CREDENTIAL_CLOSED && stored?.sequence === 'SUBSEQUENT') {
      return CREDENTIAL_CLOSED_DECLINE[request.brand];
    }
    if (scenario === MIT_DO_NOT_HONOUR && merchantInitiated) return { responseCode: '05', message: 'Do not honor' };
    return DECLINES[scenario];
  }

  async capture(request: AcquirerFollowUpRequest, options?: AcquirerCallOptions): Promise<AcquirerFollowUpResult> {
    options?.signal?.throwIfAborted();
    return this.followUp('CAPTURE', request);
  }

  async refund(request: AcquirerFollowUpRequest, options?: AcquirerCallOptions): Promise<AcquirerFollowUpResult> {
    options?.signal?.throwIfAborted();
    return this.followUp('REFUND', request);
  }

  async reverse(request: AcquirerFollowUpRequest, options?: AcquirerCallOptions): Promise<AcquirerFollowUpResult> {
    options?.signal?.throwIfAborted();
    return this.followUp('REVERSAL', request);
  }

  async inquire(xId: string): Promise<AcquirerFollowUpResult | undefined> {
    const answer = this.#inFlight.get(xId) ?? this.#declined.get(xId);
    if (answer) return answer;
    const booked = await this.ledger.find(xId);
    if (!booked || booked.type === 'AUTHORIZATION' || booked.type === 'SALE') return undefined;
    return { outcome: 'APPROVED', acquirerReference: booked.acquirerReference, responseCode: '00' };
  }

  /** Follow-ups being processed, by xId: a repeat while the first is in flight waits for its answer. */
  readonly #inFlight = new Map<string, Promise<AcquirerFollowUpResult>>();
  /** Declined follow-ups (never booked), by xId: the newest MEMORY_LEDGER_CAPACITY. */
  readonly #declined = new Map<string, AcquirerFollowUpResult>();
  /** Authorizations whose final capture was booked (their rest is released): the newest MEMORY_LEDGER_CAPACITY. */
  readonly #finallyCaptured = new Set<string>();

  private followUp(type: SettlementRecord['type'], request: AcquirerFollowUpRequest): Promise<AcquirerFollowUpResult> {
    const known = this.#inFlight.get(request.xId);
    if (known) return known;
    const answer = this.#processFollowUp(type, request).finally(() => this.#inFlight.delete(request.xId));
    this.#inFlight.set(request.xId, answer);
    return answer;
  }

  async #processFollowUp(
    type: SettlementRecord['type'],
    request: AcquirerFollowUpRequest,
  ): Promise<AcquirerFollowUpResult> {
    const declined = this.#declined.get(request.xId);
    if (declined) return declined;
    const acquirerReference = `SIM${request.xId.slice(0, 12).toUpperCase()}`;
    const booked = await this.ledger.find(request.xId);
    if (booked) return { outcome: 'APPROVED', acquirerReference: booked.acquirerReference, responseCode: '00' };
    if (type === 'CAPTURE' && this.#finallyCaptured.has(request.authorizationXId)) {
      const result: AcquirerFollowUpResult = {
        outcome: 'DECLINED',
        acquirerReference,
        responseCode: '12',
        message: 'Invalid transaction: the authorization was finally captured',
      };
      this.#declined.set(request.xId, result);
      forgetOldest(this.#declined);
      return result;
    }
    await this.settle(type, request, acquirerReference);
    if (type === 'CAPTURE' && request.finalCapture) {
      this.#finallyCaptured.add(request.authorizationXId);
      forgetOldest(this.#finallyCaptured);
    }
    return { outcome: 'APPROVED', acquirerReference, responseCode: '00' };
  }

  private settle(
    type: SettlementRecord['type'],
    request: Pick<SettlementRecord, 'xId' | 'authorizationXId' | 'payId' | 'merchantId' | 'value' | 'currency'> &
      Partial<
        Pick<
          SettlementRecord,
          'statementDescriptor' | 'exemption' | 'finalCapture' | 'authorizationCode' | 'schemeReferenceId'
        >
      >,
    acquirerReference: string,
  ): Promise<void> {
    return this.ledger.append({
      ...(request.authorizationCode !== undefined && { authorizationCode: request.authorizationCode }),
      ...(request.schemeReferenceId !== undefined && { schemeReferenceId: request.schemeReferenceId }),
      ...(request.statementDescriptor !== undefined && { statementDescriptor: request.statementDescriptor }),
      ...(request.exemption !== undefined && { exemption: request.exemption }),
      ...(request.finalCapture && { finalCapture: true }),
      type,
      xId: request.xId,
      authorizationXId: request.authorizationXId,
      payId: request.payId,
      merchantId: request.merchantId,
      value: request.value,
      currency: request.currency,
      acquirerReference,
      at: isoTime(this.now()),
    });
  }
}

/** Keeps a simulator memory (insertion-ordered) to MEMORY_LEDGER_CAPACITY entries by forgetting the oldest. */
function forgetOldest(memory: Map<string, unknown> | Set<string>): void {
  if (memory.size <= MEMORY_LEDGER_CAPACITY) return;
  const oldest = memory.keys().next();
  if (!oldest.done) memory.delete(oldest.value);
}
