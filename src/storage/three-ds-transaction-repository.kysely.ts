import { type Kysely, type Selectable, SqliteAdapter } from 'kysely';
import type { ChallengeWindowSize } from '../domain/threeds/authentication-response.js';
import type { MessageVersion } from '../domain/threeds/three-ds-messages.js';
import type {
  ThreeDSMethodStatus,
  ThreeDSPhase,
  ThreeDSTransaction,
  ThreeDSTransactionRepository,
} from '../domain/threeds/three-ds-transaction.js';
import type { Database, ThreeDSTransactionTable } from './database.js';
import { deferrable } from './deferrable.js';
import { shaped } from './query-shapes.js';
import { fromDbTime, fromJson, optional, toDbTime, toJson } from './rows.js';

/** Row of `three_ds_transaction` (migration 2026-11-21-0004). Times ISO 8601 text; `authentication` JSON text. */

type Db = Kysely<Database>;

/** Phases in which the payment waits for the cardholder or the ACS, and so may expire. */
const WAITING_PHASES: ThreeDSPhase[] = ['METHOD', 'CHALLENGE', 'APP_CHALLENGE', 'DECOUPLED'];

function rowToTransaction(row: Selectable<ThreeDSTransactionTable>): ThreeDSTransaction {
  const t: ThreeDSTransaction = {
    payId: row.pay_id,
    merchantId: row.merchant_id,
    phase: row.phase as ThreeDSPhase,
    methodStatus: row.method_status as ThreeDSMethodStatus,
    redirectNonce: row.redirect_nonce,
    redirectExpiresAt: fromDbTime(row.redirect_expires_at),
    createdAt: fromDbTime(row.created_at),
    updatedAt: fromDbTime(row.updated_at),
  };
  const set = <K extends keyof ThreeDSTransaction>(key: K, value: ThreeDSTransaction[K] | undefined) => {
    if (value !== undefined) t[key] = value;
  };
  set('threeDSMethodURL', optional(row.three_ds_method_url));
  set('methodStartedAt', row.method_started_at === null ? undefined : fromDbTime(row.method_started_at));
  set('threeDSCompInd', optional(row.three_ds_comp_ind) as 'Y' | 'N' | 'U' | undefined);
  set('acsTransID', optional(row.acs_trans_id));
  set('dsTransID', optional(row.ds_trans_id));
  set('acsURL', optional(row.acs_url));
  set('messageVersion', optional(row.message_version) as MessageVersion | undefined);
  set('challengeWindowSize', optional(row.challenge_window_size) as ChallengeWindowSize | undefined);
  set('creq', optional(row.creq));
  set('authentication', fromJson<ThreeDSTransaction['authentication']>(row.authentication));
  return t;
}

function transactionToRow(t: ThreeDSTransaction): ThreeDSTransactionTable {
  return {
    pay_id: t.payId,
    merchant_id: t.merchantId,
    phase: t.phase,
    three_ds_method_url: t.threeDSMethodURL ?? null,
    method_status: t.methodStatus,
    method_started_at: t.methodStartedAt === undefined ? null : toDbTime(t.methodStartedAt),
    three_ds_comp_ind: t.threeDSCompInd ?? null,
    acs_trans_id: t.acsTransID ?? null,
    ds_trans_id: t.dsTransID ?? null,
    acs_url: t.acsURL ?? null,
    message_version: t.messageVersion ?? null,
    challenge_window_size: t.challengeWindowSize ?? null,
    creq: t.creq ?? null,
    authentication: toJson(t.authentication),
    redirect_nonce: t.redirectNonce,
    redirect_expires_at: toDbTime(t.redirectExpiresAt),
    created_at: toDbTime(t.createdAt),
    updated_at: toDbTime(t.updatedAt),
  };
}

/** ThreeDSTransactionRepository over Kysely (SQLite and PostgreSQL alike). */
export class KyselyThreeDSTransactionRepository implements ThreeDSTransactionRepository {
  readonly #db: Db;

  /** SQLite has no row locks (one writer at a time); PostgreSQL's candidates are locked FOR UPDATE SKIP LOCKED. */
  readonly #sqlite: boolean;

  constructor(db: Kysely<Database>) {
    this.#db = db;
    this.#sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  }

  async save(t: ThreeDSTransaction): Promise<void> {
    const row = transactionToRow(t);
    const { pay_id: _payId, created_at: _createdAt, ...changes } = row;
    await this.#db
      .insertInto('three_ds_transaction')
      .values(row)
      .onConflict((oc) => oc.column('pay_id').doUpdateSet(changes))
      .execute();
  }

  async find(payId: string): Promise<ThreeDSTransaction | undefined> {
    const row = await this.#db
      .selectFrom('three_ds_transaction')
      .selectAll()
      .where('pay_id', '=', payId)
      .executeTakeFirst();
    return row && rowToTransaction(row);
  }

  async claimPhase(payId: string, from: ThreeDSPhase, to: ThreeDSPhase, at: Date): Promise<boolean> {
    const result = await this.#db
      .updateTable('three_ds_transaction')
      .set({ phase: to, updated_at: toDbTime(at) })
      .where('pay_id', '=', payId)
      .where('phase', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async close(payId: string, at: Date): Promise<void> {
    const updatedAt = toDbTime(at);
    const query = shaped(this.#db, 'three_ds_transaction.close', ['DONE', updatedAt, payId, 'DONE'], () =>
      this.#db
        .updateTable('three_ds_transaction')
        .set({ phase: 'DONE', updated_at: updatedAt })
        .where('pay_id', '=', payId)
        .where('phase', '<>', 'DONE'),
    );
    await this.#db.executeQuery(deferrable(query));
  }

  async markMethodCompleted(payId: string, at: Date): Promise<boolean> {
    const result = await this.#db
      .updateTable('three_ds_transaction')
      .set({ method_status: 'COMPLETED', updated_at: toDbTime(at) })
      .where('pay_id', '=', payId)
      .where('phase', '=', 'METHOD')
      .where('method_status', 'in', ['NOT_STARTED', 'STARTED'])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async pruneDone(expiredBefore: Date, limit: number): Promise<number> {
    const cutoff = toDbTime(expiredBefore);
    const prune = async (trx: Db) => {
      // Through the (phase, redirect_expires_at) index. On PostgreSQL the candidates are locked and rows another
      // node's prune holds are skipped, so two nodes never wait on each other.
      const candidates = trx
        .selectFrom('three_ds_transaction')
        .select('pay_id')
        .where('phase', '=', 'DONE')
        .where('redirect_expires_at', '<', cutoff)
        .limit(limit);
      const payIds = (await (this.#sqlite ? candidates : candidates.forUpdate().skipLocked()).execute()).map(
        (r) => r.pay_id,
      );
      if (payIds.length === 0) return 0;
      const r = await trx
        .deleteFrom('three_ds_transaction')
        .where('pay_id', 'in', payIds)
        .where('phase', '=', 'DONE')
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    };
    if (this.#db.isTransaction) return prune(this.#db);
    return this.#db.transaction().execute(prune);
  }

  async findExpired(now: Date, limit: number): Promise<ThreeDSTransaction[]> {
    const rows = await this.#db
      .selectFrom('three_ds_transaction')
      .selectAll()
      .where('phase', 'in', WAITING_PHASES)
      .where('redirect_expires_at', '<', toDbTime(now))
      .orderBy('redirect_expires_at')
      .limit(limit)
      .execute();
    return rows.map(rowToTransaction);
  }
}
