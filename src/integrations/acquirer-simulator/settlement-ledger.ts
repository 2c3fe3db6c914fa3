import { appendFile, readFile } from 'node:fs/promises';

/**
 * One approved message the simulated acquirer processed, as an acquirer's settlement report lists it. Amounts are
 * integer minor units of `currency`, surcharge included (what actually moves on the card).
 * - AUTHORIZATION: funds reserved, nothing moved yet; SALE: authorized and captured in one message;
 * - CAPTURE moves (part of) an authorization; REFUND moves money back; REVERSAL releases a whole authorization.
 */
export interface SettlementRecord {
  type: 'AUTHORIZATION' | 'SALE' | 'CAPTURE' | 'REFUND' | 'REVERSAL';
  /** Kassa's operation id of this message. */
  xId: string;
  /** The authorization this message belongs to (its own xId for AUTHORIZATION and SALE). */
  authorizationXId: string;
  payId: string;
  merchantId: string;
  value: number;
  currency: string;
  acquirerReference: string;
  /** AUTHORIZATION/SALE: the text for the cardholder's statement (Paygate `statementDescriptor`), when sent. */
  statementDescriptor?: string;
  /** AUTHORIZATION/SALE: the SCA exemption the merchant asked the acquirer to apply (Paygate threeDsPolicy). */
  exemption?: string;
  /** AUTHORIZATION/SALE: the issuer's approval code. */
  authorizationCode?: string;
  /** AUTHORIZATION/SALE: the network's transaction id (AcquirerAuthorizationResult.schemeReferenceId), when given. */
  schemeReferenceId?: string;
  /** CAPTURE: the final capture of its authorization (Paygate `finishAuth: "Y"`); the uncaptured rest is released. */
  finalCapture?: boolean;
  /** ISO 8601. */
  at: string;
}

/** Where the simulator keeps its settlement records: what a reconciliation compares Kassa's totals against. */
export interface SettlementLedger {
  append(record: SettlementRecord): Promise<void>;
  /** Every record kept, oldest first (MemorySettlementLedger keeps the newest ones only). */
  records(): Promise<SettlementRecord[]>;
  /** The record of the message sent with `xId`, if it was booked and is still kept (the acquirer's idempotency check). */
  find(xId: string): Promise<SettlementRecord | undefined>;
}

/**
 * Records MemorySettlementLedger keeps by default, and the simulator's memory of declined and finally captured
 * messages: ~420-500 bytes a record, so ~5 MB (issue 12: the ledger kept every record of the process's life, 400 MB
 * after a million payments; then the newest 50,000, which at the bench's ~3,500 payments/s was ~25 MB of the server's
 * heap and peak RSS 248-272 MB against 223-233 MB with 10,000; docs/decisions.md). A sandbox acquirer's memory, not
 * Kassa's: a follow-up resent after 10,000 newer messages is booked again, and the authorization recovery reads an
 * authorization older than that as never received; a file ledger keeps every record.
 */
export const MEMORY_LEDGER_CAPACITY = 10_000;

/**
 * Records in this process's memory: one node, or tests. It keeps the newest `capacity` records (at most a quarter
 * more between trims, so that an append costs O(1) on average): a sandbox acquirer remembers its recent messages, and
 * a follow-up resent after `capacity` newer messages is booked again. A file ledger keeps every record.
 */
export class MemorySettlementLedger implements SettlementLedger {
  private readonly list: SettlementRecord[] = [];
  private readonly byXId = new Map<string, SettlementRecord>();

  /** @throws RangeError when `capacity` is not a positive whole number. */
  constructor(readonly capacity = MEMORY_LEDGER_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be ≥ 1, not ${capacity}`);
  }

  async append(record: SettlementRecord): Promise<void> {
    this.list.push(record);
    this.byXId.set(record.xId, record);
    if (this.list.length >= this.capacity + Math.ceil(this.capacity / 4)) {
      for (const r of this.list.splice(0, this.list.length - this.capacity)) {
        if (this.byXId.get(r.xId) === r) this.byXId.delete(r.xId);
      }
    }
  }

  async records(): Promise<SettlementRecord[]> {
    return [...this.list];
  }

  async find(xId: string): Promise<SettlementRecord | undefined> {
    return this.byXId.get(xId);
  }
}

/**
 * Records appended to one file as JSON lines, so that several nodes (processes) of one host write one ledger, as they
 * would all talk to one acquirer. Each record is one `O_APPEND` write of a single line well under the size the kernel
 * writes at once, so lines of concurrent writers never interleave.
 */
export class FileSettlementLedger implements SettlementLedger {
  constructor(readonly file: string) {}

  async append(record: SettlementRecord): Promise<void> {
    await appendFile(this.file, `${JSON.stringify(record)}\n`, { flag: 'a' });
  }

  async records(): Promise<SettlementRecord[]> {
    const text = await readFile(this.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    return text
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as SettlementRecord);
  }

  async find(xId: string): Promise<SettlementRecord | undefined> {
    return (await this.records()).find((r) => r.xId === xId);
  }
}

/** Per authorization: what the ledger says was authorized, captured, refunded and reversed (minor units). */
export interface SettlementTotals {
  payId: string;
  merchantId: string;
  currency: string;
  authorized: number;
  captured: number;
  refunded: number;
  reversed: boolean;
  /** Released by a final capture (Paygate `finishAuth: "Y"`): authorized − captured at that capture. */
  released: number;
  /** Messages seen per xId; more than one means a message was applied twice. */
  messagesPerXId: Map<string, number>;
}

/** Sums the records per payment (reconciliation). */
export function settlementTotals(records: SettlementRecord[]): Map<string, SettlementTotals> {
  const byPayment = new Map<string, SettlementTotals>();
  for (const r of records) {
    let t = byPayment.get(r.payId);
    if (!t) {
      t = {
        payId: r.payId,
        merchantId: r.merchantId,
        currency: r.currency,
        authorized: 0,
        captured: 0,
        refunded: 0,
        reversed: false,
        released: 0,
        messagesPerXId: new Map(),
      };
      byPayment.set(r.payId, t);
    }
    t.messagesPerXId.set(r.xId, (t.messagesPerXId.get(r.xId) ?? 0) + 1);
    if (r.type === 'AUTHORIZATION') t.authorized += r.value;
    else if (r.type === 'SALE') {
      t.authorized += r.value;
      t.captured += r.value;
    } else if (r.type === 'CAPTURE') {
      t.captured += r.value;
      if (r.finalCapture) t.released = t.authorized - t.captured;
    } else if (r.type === 'REFUND') t.refunded += r.value;
    else t.reversed = true;
  }
  return byPayment;
}
