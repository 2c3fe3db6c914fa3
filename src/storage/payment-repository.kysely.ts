import type DataLoader from 'dataloader';
import {
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  SqliteAdapter,
  sql,
} from 'kysely';
import { jsonArrayFrom as postgresJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import type {
  CaptureMethod,
  CardSummary,
  Channel,
  IntegrationType,
  OperationType,
  Payment,
  PaymentOperation,
  PaymentStatus,
  SurchargeConsent,
  SurchargeReason,
  ThreeDSResult,
} from '../domain/payments/payment.js';
import type { PaymentRepository } from '../domain/ports/store.js';
import { isUniqueViolation } from './create-db.js';
import type { Database, PaymentOperationTable, PaymentTable } from './database.js';
import { deferrable } from './deferrable.js';
import { inFlightBatches } from './in-flight-batches.js';
import { paymentCreatedAt } from './payment-created-at.js';
import { definedEntries, shaped } from './query-shapes.js';
import type { ReadAlongside } from './read-alongside.js';
import { fromDbTime, fromJson, optional, rowLock, toDbTime, toJson } from './rows.js';

function operationRowToOperation(row: Selectable<PaymentOperationTable>): PaymentOperation {
  return {
    xId: row.x_id,
    type: row.type as OperationType,
    refNr: optional(row.ref_nr),
    transId: optional(row.trans_id),
    value: row.value,
    surchargeValue: row.surcharge_value,
    status: row.status as PaymentOperation['status'],
    responseCode: row.response_code,
    creationDate: fromDbTime(row.created_at),
    ...(Number(row.final_capture) === 1 && { finalCapture: true }),
    ...(row.request_key !== null && { requestKey: row.request_key }),
  };
}

/** Every column of payment_operation, for the JSON array of a payment's operations (SQLite's json_object names each). */
const OPERATION_COLUMNS = [
  'x_id',
  'pay_id',
  'seq',
  'type',
  'ref_nr',
  'trans_id',
  'value',
  'surcharge_value',
  'status',
  'response_code',
  'created_at',
  'final_capture',
  'claimed_until',
  'request_key',
] as const satisfies readonly (keyof PaymentOperationTable)[];

/** A payment row read with its operations as one JSON array column (`operations`: text on SQLite, parsed on PostgreSQL). */
type PaymentWithOperationsRow = Selectable<PaymentTable> & { operations: unknown };

/**
 * PostgreSQL: the seq of an operation `r` of payment `payId` appended to its stored ones (r.seq: its place among
 * those added), read through the (payment_created_at, pay_id, seq) index.
 */
const nextSeq = (payId: string) =>
  sql`(select coalesce(max(o.seq), 0) from payment_operation o
    where o.payment_created_at = ${paymentCreatedAt(payId)} and o.pay_id = r.pay_id) + row_number() over (order by r.seq)`;

/**
 * The operation's row, without `payment_created_at` (the first column of the operations' (payment_created_at, pay_id,
 * seq) index, migration 2026-11-26-0001): every statement that inserts one takes it from the payment row itself, so it
 * cannot differ from the payment's `created_at`.
 */
export function operationToRow(
  payId: string,
  seq: number,
  op: PaymentOperation,
): Omit<Insertable<PaymentOperationTable>, 'payment_created_at'> {
  return {
    x_id: op.xId,
    pay_id: payId,
    seq,
    type: op.type,
    ref_nr: op.refNr ?? null,
    trans_id: op.transId ?? null,
    value: op.value,
    surcharge_value: op.surchargeValue,
    status: op.status,
    response_code: op.responseCode,
    created_at: toDbTime(op.creationDate),
  };
}

function consentFromJson(text: string | null): SurchargeConsent | undefined {
  const c = fromJson<Omit<SurchargeConsent, 'consentedAt'> & { consentedAt: string }>(text);
  return c && { ...c, consentedAt: new Date(c.consentedAt) };
}

/** A payment row with its `operations` JSON array column (selectWithOperations) as a Payment. */
function paymentWithOperations(row: PaymentWithOperationsRow): Payment {
  // No `{ operations, ...row }`: copying the row's ~40 columns into a new object cost more than the rest of this
  // function (paymentRowToPayment reads the columns it needs by name and ignores `operations`).
  const { operations } = row;
  const ops = (
    typeof operations === 'string' ? JSON.parse(operations) : operations
  ) as Selectable<PaymentOperationTable>[];
  // By seq, whatever order the aggregate kept (SQL gives an aggregate over an ordered subquery no order guarantee).
  ops.sort((a, b) => a.seq - b.seq);
  return paymentRowToPayment(row, ops.map(operationRowToOperation));
}

export function paymentRowToPayment(row: Selectable<PaymentTable>, operations: PaymentOperation[]): Payment {
  return {
    payId: row.pay_id,
    merchantId: row.merchant_id,
    transId: row.trans_id,
    refNr: optional(row.ref_nr),
    status: row.status as PaymentStatus,
    responseCode: row.response_code,
    currency: row.currency,
    value: row.value,
    capturedValue: row.captured_value,
    refundedValue: row.refunded_value,
    surcharge: {
      status: row.surcharge_status as 'APPLIED' | 'NOT_OFFERED',
      reason: row.surcharge_reason as SurchargeReason,
      value: row.surcharge_value,
    },
    surchargeCapturedValue: row.surcharge_captured_value,
    surchargeRefundedValue: row.surcharge_refunded_value,
    captureMethod: row.capture_method as CaptureMethod,
    integrationType: row.integration_type as IntegrationType,
    channel: row.channel as Channel,
    language: optional(row.language),
    card: fromJson<CardSummary>(row.card),
    threeDS: fromJson<ThreeDSResult>(row.three_ds),
    order: fromJson(row.order_data),
    customerInfo: fromJson(row.customer_info),
    urls: fromJson(row.urls),
    metadata: fromJson(row.metadata),
    informational: fromJson(row.informational),
    sessionId: optional(row.session_id),
    surchargeConsent: consentFromJson(row.surcharge_consent),
    operations,
    creationDate: fromDbTime(row.created_at),
    updatedAt: fromDbTime(row.updated_at),
  };
}

function mutableColumns(p: Payment) {
  return {
    status: p.status,
    response_code: p.responseCode,
    captured_value: p.capturedValue,
    refunded_value: p.refundedValue,
    surcharge_status: p.surcharge.status,
    surcharge_reason: p.surcharge.reason,
    surcharge_value: p.surcharge.value,
    surcharge_captured_value: p.surchargeCapturedValue,
    surcharge_refunded_value: p.surchargeRefundedValue,
    card: toJson(p.card),
    three_ds: toJson(p.threeDS),
    surcharge_consent: toJson(p.surchargeConsent),
    updated_at: toDbTime(p.updatedAt),
  };
}

/** The payment table's row of a new payment (every column given: NULL for what the payment lacks). */
function paymentRow(p: Payment): Insertable<PaymentTable> {
  return {
    pay_id: p.payId,
    merchant_id: p.merchantId,
    trans_id: p.transId,
    ref_nr: p.refNr ?? null,
    currency: p.currency,
    value: p.value,
    capture_method: p.captureMethod,
    integration_type: p.integrationType,
    channel: p.channel,
    language: p.language ?? null,
    order_data: toJson(p.order),
    customer_info: toJson(p.customerInfo),
    urls: toJson(p.urls),
    metadata: toJson(p.metadata),
    informational: toJson(p.informational),
    session_id: p.sessionId ?? null,
    created_at: toDbTime(p.creationDate),
    ...mutableColumns(p),
  };
}

/** New payments without operations (the intents of DIRECT and hosted payments) inserted by one statement at most. */
export const INTENT_BATCH_MAX = 16;
/** Lookups by payId that one PostgreSQL statement answers at most (the bench's 32 connections fit in one). */
export const LOOKUP_BATCH_MAX = 32;

/** A data exception or integrity constraint violation (SQLSTATE class 22 or 23): the statement failed, nothing else. */
const isStatementError = (error: unknown): boolean => /^2[23]/.test(String((error as { code?: unknown }).code ?? ''));

export class KyselyPaymentRepository implements PaymentRepository {
  /**
   * PostgreSQL, outside a transaction: the intents of concurrent requests go to the database together, as one
   * multi-row INSERT (storage/in-flight-batches.ts; issue 12: a round trip costs the event loop more than the insert
   * costs the server). Each is still committed before its caller goes on: an autocommit statement is durable when it
   * answers. SQLite's writer already commits concurrent units together (sqlite-group-commit.ts).
   */
  private readonly intents: DataLoader<Payment, 'OK' | 'TRANS_ID_IN_USE'> | undefined;
  /**
   * PostgreSQL, outside a transaction: the lookups by payId of concurrent requests are one statement (the same scheme
   * as the intents and the credential reads; issue 12, session 15). Each batch is sent after all its callers asked, so
   * a lookup still sees every change committed before it was made.
   */
  private readonly lookups: DataLoader<{ merchantId: string; payId: string }, Payment | undefined> | undefined;

  constructor(private readonly db: Kysely<Database>) {
    if (!db.isTransaction && !(db.getExecutor().adapter instanceof SqliteAdapter)) {
      this.intents = inFlightBatches((payments) => this.insertIntents(payments), INTENT_BATCH_MAX);
      this.lookups = inFlightBatches((keys) => this.findByPayIds(keys), LOOKUP_BATCH_MAX);
    }
  }

  /** @returns TRANS_ID_IN_USE when a payment of the merchant that has not failed holds `transId` (nothing stored). */
  async insert(p: Payment): Promise<'OK' | 'TRANS_ID_IN_USE'> {
    if (this.intents !== undefined && p.operations.length === 0) return this.intents.load(p);
    return this.insertOne(p);
  }

  private async insertOne(p: Payment): Promise<'OK' | 'TRANS_ID_IN_USE'> {
    try {
      const row = paymentRow(p);
      const { key, values } = definedEntries(row);
      await this.db.executeQuery(
        shaped(this.db, `payment.insert ${key}`, values, () => this.db.insertInto('payment').values(row)),
      );
    } catch (error) {
      if (isUniqueViolation(error)) return 'TRANS_ID_IN_USE';
      throw error;
    }
    await this.insertOperations(p.payId, p.operations);
    return 'OK';
  }

  /**
   * One INSERT of `payments` (all without operations) that skips a row another payment's unique key holds
   * (`on conflict do nothing`, also against a row of the same statement) and returns the payIds it stored: those it
   * did not are TRANS_ID_IN_USE, as a unique violation of insertOne. When the statement fails (a row broke a
   * constraint, nothing of it is stored) each payment is inserted on its own and gets its own answer or error; any
   * other failure (the connection lost: stored or not is unknown) reaches every caller, as it would one insert's.
   */
  private async insertIntents(payments: readonly Payment[]): Promise<('OK' | 'TRANS_ID_IN_USE' | Error)[]> {
    const each = () => Promise.all(payments.map((p) => this.insertOne(p).catch((error: Error) => error)));
    const rows = payments.map(paymentRow);
    const entries = rows.map(definedEntries);
    const key = entries[0]?.key;
    if (payments.length === 1 || entries.some((e) => e.key !== key)) return each();
    const query = shaped(
      this.db,
      `payment.insertIntents ${payments.length} ${key}`,
      entries.flatMap((e) => e.values),
      () =>
        this.db
          .insertInto('payment')
          .values(rows)
          .onConflict((oc) => oc.doNothing())
          .returning('pay_id'),
    );
    let stored: Set<string>;
    try {
      const { rows: inserted } = (await this.db.executeQuery(query)) as { rows: { pay_id: string }[] };
      stored = new Set(inserted.map((r) => r.pay_id));
    } catch (error) {
      if (isStatementError(error)) return each();
      throw error;
    }
    return payments.map((p) => (stored.has(p.payId) ? 'OK' : 'TRANS_ID_IN_USE'));
  }

  async update(p: Payment): Promise<void> {
    const columns = mutableColumns(p);
    const { key, values } = definedEntries(columns);
    const update = shaped(this.db, `payment.update ${key}`, [...values, p.payId], () =>
      this.db.updateTable('payment').set(columns).where('pay_id', '=', p.payId),
    );
    await this.db.executeQuery(deferrable(update));
    if (p.operations.length === 0) return;
    if (this.db.getExecutor().adapter instanceof SqliteAdapter) {
      // No read (issue 12): each operation is inserted unless stored already, numbered after the last stored one by
      // the statement itself; deferrable, so the whole update rides along in one message to the writer.
      for (const op of p.operations) {
        const { seq: _seq, ...row } = operationToRow(p.payId, 0, op);
        const { key, values } = definedEntries(row);
        const insert = shaped(this.db, `payment_operation.append ${key}`, [...values, p.payId, p.payId, p.payId], () =>
          this.db
            .insertInto('payment_operation')
            .values({
              ...row,
              payment_created_at: paymentCreatedAt(p.payId),
              seq: (eb) =>
                eb
                  .selectFrom('payment_operation')
                  .select(sql<number>`coalesce(max(seq), 0) + 1`.as('next'))
                  .where('payment_created_at', '=', paymentCreatedAt(p.payId))
                  .where('pay_id', '=', p.payId),
            })
            .onConflict((oc) => oc.column('x_id').doNothing()),
        );
        await this.db.executeQuery(deferrable(insert));
      }
      return;
    }
    // PostgreSQL (issue 12): one deferrable statement, no read. The operations travel as one JSON array typed by
    // the table's row type; those stored already are left out (looked up by payment_created_at and pay_id, through
    // their index: a `not exists` on x_id was planned as a hash anti-join over the whole table) and the others
    // numbered after the last stored seq, in their order. payment_created_at comes from the payment row, by scalar
    // subqueries on payId (each evaluated once): joining the JSON rows to `payment` was planned as a hash join over
    // the whole table while it was small and kept as the prepared statement's plan as it grew (measured: 2,167 µs of
    // PostgreSQL CPU a payment). Without the payment row the value is NULL and the insert fails on the foreign key.
    // One statement, so the payment's other deferrable writes can join it (postgres-deferring-driver.ts).
    const rows = p.operations.map((op, i) => operationToRow(p.payId, i + 1, op));
    const names = Object.keys(rows[0] ?? {}); // operationToRow's, the same for every row
    const json = JSON.stringify(rows);
    const selected = names.map((c) => (c === 'seq' ? nextSeq(p.payId) : sql.ref(`r.${c}`)));
    const params = [...(names.includes('seq') ? [p.payId] : []), p.payId, json, p.payId, p.payId];
    const insert = shaped(this.db, `payment_operation.appendJson ${names.join(',')}`, params, () => ({
      compile: () =>
        sql`insert into payment_operation (${sql.raw(names.join(', '))}, payment_created_at)
          select ${sql.join(selected)}, ${paymentCreatedAt(p.payId)}
          from json_populate_recordset(null::payment_operation, ${json}::json) r
          where r.x_id not in (select o.x_id from payment_operation o
            where o.payment_created_at = ${paymentCreatedAt(p.payId)} and o.pay_id = ${p.payId})
          on conflict (x_id) do nothing`.compile(this.db),
    }));
    await this.db.executeQuery(deferrable(insert));
  }

  async insertOperations(payId: string, operations: PaymentOperation[]): Promise<void> {
    if (operations.length === 0) return;
    const payment = await this.db
      .selectFrom('payment')
      .select('created_at')
      .where('pay_id', '=', payId)
      .executeTakeFirst();
    if (payment === undefined) throw new Error(`no payment ${payId} to add operations to`);
    const last = await this.db
      .selectFrom('payment_operation')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('payment_created_at', '=', payment.created_at)
      .where('pay_id', '=', payId)
      .executeTakeFirst();
    await this.insertAfter(payId, payment.created_at, Number(last?.seq ?? 0), operations);
  }

  /**
   * Inserts operations numbered after `lastSeq` (the unique (payment_created_at, pay_id, seq) index refuses a stale
   * number). `paymentCreatedAt`: the payment row's `created_at`.
   */
  private async insertAfter(
    payId: string,
    paymentCreatedAt: string,
    lastSeq: number,
    operations: PaymentOperation[],
  ): Promise<void> {
    if (operations.length === 0) return;
    await this.db
      .insertInto('payment_operation')
      .values(
        operations.map((op, i) => ({
          ...operationToRow(payId, lastSeq + i + 1, op),
          payment_created_at: paymentCreatedAt,
        })),
      )
      .execute();
  }

  async findByPayId(merchantId: string, payId: string): Promise<Payment | undefined> {
    if (this.lookups !== undefined) return this.lookups.load({ merchantId, payId });
    return this.findOne(merchantId, payId);
  }

  /**
   * findByPayId's SQLite lookup as a read to run alongside another (KyselyAuthEpoch.readWithAttempts: the credentials
   * check and the payment in one statement; issue 12). `parse` answers undefined when there is no such payment of the
   * merchant, as findByPayId does.
   */
  byPayIdAlongside(merchantId: string, payId: string): ReadAlongside<Payment | undefined> {
    return this.paymentRead('payment.byPayId', [merchantId, payId], () =>
      this.selectWithOperations().where('merchant_id', '=', merchantId).where('pay_id', '=', payId),
    );
  }

  /** One payment by `merchant_id = ? and pay_id = ?`. */
  private findOne(merchantId: string, payId: string): Promise<Payment | undefined> {
    return this.readAlone(this.byPayIdAlongside(merchantId, payId));
  }

  /**
   * A single-row read of a payment with its operations (`build`: selectWithOperations and its conditions; its SQL
   * compiled once per `shape`, query-shapes.ts), to run alone (readAlone) or alongside another read.
   */
  private paymentRead(
    shape: string,
    params: readonly unknown[],
    build: () => SelectQueryBuilder<Database, 'payment', PaymentWithOperationsRow>,
  ): ReadAlongside<Payment | undefined> {
    return {
      shape,
      params,
      build: build as ReadAlongside<unknown>['build'],
      // Alongside, a payment not found is a row of NULLs.
      parse: (row) => (row.pay_id == null ? undefined : paymentWithOperations(row as PaymentWithOperationsRow)),
    };
  }

  /** Runs `read` as its own statement: its value, undefined when it finds no row. */
  private async readAlone<T>(read: ReadAlongside<T | undefined>): Promise<T | undefined> {
    const query = shaped(this.db, read.shape, read.params, read.build);
    const row = (await this.db.executeQuery(query)).rows[0] as Record<string, unknown> | undefined;
    return row && read.parse(row);
  }

  /**
   * PostgreSQL: the payments of `keys` (each a merchant's payId) in one statement, one primary-key probe per distinct
   * payId; a caller whose payId is another merchant's, or unknown, gets undefined, as findByPayId's
   * `merchant_id = ? and pay_id = ?` answers it. The array is `bpchar[]`, the column's own type, so the primary key's
   * index serves the comparison and no value is cut to the column's length. A statement that fails on a value
   * (SQLSTATE class 22 or 23) is retried key by key, so one caller's bad value fails that caller alone.
   *
   * The merchant is checked here, per caller, not in the statement: with `merchant_id = any(…)` in it, a table whose
   * statistics are missing or stale (new, or grown since autovacuum last analyzed it) was planned through the
   * (merchant_id, trans_id) index, reading every payment of the merchant to return 32 (measured on a never-analyzed
   * table of 1,001 payments: 1.37 ms against 0.38 ms through the primary key; issue 12).
   */
  private async findByPayIds(
    keys: readonly { merchantId: string; payId: string }[],
  ): Promise<(Payment | undefined | Error)[]> {
    const payIds = [...new Set(keys.map((k) => k.payId))];
    // from unnest(payIds) k join lateral (select * from payment where pay_id = k.k limit 1) payment: each payId its own
    // primary-key probe. The LIMIT keeps PostgreSQL from flattening the subquery into a join, which a table without
    // statistics got as a sequential scan of payment (`pay_id = any(…)` too).
    const query = shaped(this.db, 'payment.byPayIds', [payIds], () =>
      this.db
        .selectFrom(sql<{ k: string }>`unnest(${payIds}::bpchar[])`.as('k'))
        .innerJoinLateral(
          (eb) =>
            eb.selectFrom('payment').selectAll().whereRef('payment.pay_id', '=', 'k.k').limit(sql.lit(1)).as('payment'),
          (join) => join.onTrue(),
        )
        .selectAll('payment')
        .select((eb) => this.operationsColumn(eb)),
    );
    let rows: PaymentWithOperationsRow[];
    try {
      rows = (await this.db.executeQuery(query)).rows as PaymentWithOperationsRow[];
    } catch (error) {
      if (!isStatementError(error) || keys.length === 1) throw error;
      // A value broke the statement (a data exception, e.g. a NUL byte): each is read alone, so it fails its caller only.
      return Promise.all(
        keys.map(({ merchantId, payId }) =>
          this.findOne(merchantId, payId).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e)))),
        ),
      );
    }
    const byPayId = new Map(rows.map((r) => [r.pay_id, r]));
    return keys.map(({ merchantId, payId }) => {
      const row = byPayId.get(payId);
      return row !== undefined && row.merchant_id === merchantId ? paymentWithOperations(row) : undefined;
    });
  }

  async findWaitingHostedCreatedBefore(before: Date, limit: number): Promise<Payment[]> {
    const rows = await this.selectWithOperations()
      // Literals, as the partial index's condition names them (migration 2026-11-27-0001): a planner chooses a partial
      // index only when the query's own condition implies the index's.
      .where('status', '=', sql.lit('PENDING'))
      .where('integration_type', '=', sql.lit('HOSTED'))
      .where('response_code', '=', '60040001')
      .where('created_at', '<', toDbTime(before))
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map(paymentWithOperations);
  }

  async findProcessingUpdatedBefore(before: Date, limit: number): Promise<Payment[]> {
    const rows = await this.selectWithOperations()
      // Literals, as the partial index's condition names them (migration 2026-11-27-0003).
      .where('status', '=', sql.lit('PENDING'))
      .where('response_code', 'in', [sql.lit('60000001'), sql.lit('60020001')])
      .where('updated_at', '<', toDbTime(before))
      .orderBy('updated_at')
      .limit(limit)
      .execute();
    return rows.map(paymentWithOperations);
  }

  async findByPayIdForUpdate(merchantId: string, payId: string): Promise<Payment | undefined> {
    const query = shaped(this.db, 'payment.byPayIdForUpdate', [merchantId, payId], () =>
      this.db
        .selectFrom('payment')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .where('pay_id', '=', payId)
        .$call(rowLock(this.db)),
    );
    const row = (await this.db.executeQuery(query)).rows[0] as Selectable<PaymentTable> | undefined;
    // Not selectWithOperations: a statement that waited for the row lock still reads the operations of the snapshot
    // it started with (READ COMMITTED re-checks only the locked row), so a concurrent follow-up's operation would be
    // missed. Read after the lock, they are current.
    return row && this.withOperations(row);
  }

  findByPayIdAnyMerchant(payId: string): Promise<Payment | undefined> {
    return this.readAlone(
      this.paymentRead('payment.byPayIdAnyMerchant', [payId], () =>
        this.selectWithOperations().where('pay_id', '=', payId),
      ),
    );
  }

  findLatestByTransId(merchantId: string, transId: string): Promise<Payment | undefined> {
    return this.readAlone(this.byTransIdAlongside(merchantId, transId));
  }

  /**
   * findLatestByTransId's lookup as a read to run alongside another, as {@link byPayIdAlongside} is (the credentials
   * check and the payment in one statement on SQLite; issue 12). `parse` answers undefined when the merchant has no
   * payment with that transId.
   */
  byTransIdAlongside(merchantId: string, transId: string): ReadAlongside<Payment | undefined> {
    return this.paymentRead('payment.latestByTransId', [merchantId, transId], () =>
      this.latestByTransIdQuery(merchantId, transId),
    );
  }

  /**
   * The merchant's latest payment with `transId` (DESIGN.md §4), one row: the newest by created_at; of two tries within
   * one millisecond the live one (at most one is not FAILED, by the partial unique index), then the higher payId.
   */
  private latestByTransIdQuery(merchantId: string, transId: string) {
    return this.selectWithOperations()
      .where('merchant_id', '=', merchantId)
      .where('trans_id', '=', transId)
      .orderBy('created_at', 'desc')
      .orderBy(sql`case when status = 'FAILED' then 1 else 0 end`)
      .orderBy('pay_id', 'desc')
      .limit(sql.lit(1));
  }

  /**
   * `select payment.*, <its operations as one JSON array> from payment`: a payment and its operations in ONE statement
   * (issue 12: one read instead of two on the lookup path), through Kysely's JSON helpers for the dialect.
   */
  private selectWithOperations(): SelectQueryBuilder<Database, 'payment', PaymentWithOperationsRow> {
    return this.db
      .selectFrom('payment')
      .selectAll('payment')
      .select((eb) => this.operationsColumn(eb));
  }

  /** The `operations` column: the operations of the query's `payment` row as one JSON array, by seq. */
  private operationsColumn(eb: ExpressionBuilder<Database, 'payment'>) {
    const sqlite = this.db.getExecutor().adapter instanceof SqliteAdapter;
    const jsonArrayFrom = sqlite ? sqliteJsonArrayFrom : postgresJsonArrayFrom;
    return jsonArrayFrom(
      eb
        .selectFrom('payment_operation')
        .select(OPERATION_COLUMNS)
        .whereRef('payment_operation.payment_created_at', '=', 'payment.created_at')
        .whereRef('payment_operation.pay_id', '=', 'payment.pay_id')
        .orderBy('payment_operation.seq'),
    ).as('operations');
  }

  private async withOperations(row: Selectable<PaymentTable>): Promise<Payment> {
    const query = shaped(this.db, 'payment_operation.ofPayment', [row.created_at, row.pay_id], () =>
      this.db
        .selectFrom('payment_operation')
        .selectAll()
        .where('payment_created_at', '=', row.created_at)
        .where('pay_id', '=', row.pay_id)
        .orderBy('seq'),
    );
    const ops = (await this.db.executeQuery(query)).rows as Selectable<PaymentOperationTable>[];
    return paymentRowToPayment(row, ops.map(operationRowToOperation));
  }
}
