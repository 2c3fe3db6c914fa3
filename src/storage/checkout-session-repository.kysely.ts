import type { Kysely, Selectable } from 'kysely';
import type { CaptureMethod } from '../domain/payments/payment.js';
import type { CheckoutSessionRepository } from '../domain/ports/store.js';
import type { CheckoutSession } from '../domain/sessions/checkout-session.js';
import type { CheckoutSessionTable, Database } from './database.js';
import { shaped } from './query-shapes.js';
import { fromDbTime, fromJson, optional, rowLock, toDbTime, toJson } from './rows.js';

function sessionRowToSession(row: Selectable<CheckoutSessionTable>): CheckoutSession {
  return {
    sessionId: row.session_id,
    merchantId: row.merchant_id,
    transId: row.trans_id,
    refNr: optional(row.ref_nr),
    value: row.value,
    currency: row.currency,
    captureMethod: row.capture_method as CaptureMethod,
    language: optional(row.language),
    order: fromJson(row.order_data),
    customerInfo: fromJson(row.customer_info),
    urls: JSON.parse(row.urls),
    metadata: fromJson(row.metadata),
    informational: fromJson(row.informational),
    status: row.status as CheckoutSession['status'],
    payId: optional(row.pay_id),
    cardTries: Number(row.card_tries),
    expiresAt: fromDbTime(row.expires_at),
    creationDate: fromDbTime(row.created_at),
  };
}

/** Hosted payment page sessions in the `checkout_session` table. */
export class KyselyCheckoutSessionRepository implements CheckoutSessionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(s: CheckoutSession): Promise<void> {
    const row = {
      session_id: s.sessionId,
      merchant_id: s.merchantId,
      trans_id: s.transId,
      ref_nr: s.refNr ?? null,
      value: s.value,
      currency: s.currency,
      capture_method: s.captureMethod,
      language: s.language ?? null,
      order_data: toJson(s.order),
      customer_info: toJson(s.customerInfo),
      urls: JSON.stringify(s.urls),
      metadata: toJson(s.metadata),
      informational: toJson(s.informational),
      status: s.status,
      pay_id: s.payId ?? null,
      card_tries: s.cardTries,
      expires_at: toDbTime(s.expiresAt),
      created_at: toDbTime(s.creationDate),
    };
    // Every column is given (NULL when absent): one query shape.
    const query = shaped(this.db, 'checkout_session.insert', Object.values(row), () =>
      this.db.insertInto('checkout_session').values(row),
    );
    await this.db.executeQuery(query);
  }

  find(sessionId: string): Promise<CheckoutSession | undefined> {
    return this.select(sessionId, false);
  }

  findForUpdate(sessionId: string): Promise<CheckoutSession | undefined> {
    return this.select(sessionId, true);
  }

  /** One session by id, `lock`ed until the transaction ends (rowLock); one query shape each. */
  private async select(sessionId: string, lock: boolean): Promise<CheckoutSession | undefined> {
    const name = lock ? 'checkout_session.findForUpdate' : 'checkout_session.find';
    const query = shaped(this.db, name, [sessionId], () =>
      this.db
        .selectFrom('checkout_session')
        .selectAll()
        .where('session_id', '=', sessionId)
        .$if(lock, (qb) => qb.$call(rowLock(this.db))),
    );
    const row = (await this.db.executeQuery(query)).rows[0] as Selectable<CheckoutSessionTable> | undefined;
    return row && sessionRowToSession(row);
  }

  async update(s: Pick<CheckoutSession, 'sessionId' | 'status' | 'payId' | 'cardTries'>): Promise<void> {
    const params = [s.status, s.payId ?? null, s.cardTries, s.sessionId];
    const query = shaped(this.db, 'checkout_session.update', params, () =>
      this.db
        .updateTable('checkout_session')
        .set({ status: s.status, pay_id: s.payId ?? null, card_tries: s.cardTries })
        .where('session_id', '=', s.sessionId),
    );
    await this.db.executeQuery(query);
  }
}
