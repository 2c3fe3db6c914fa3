import { type Kysely, type Selectable, SqliteAdapter, sql } from 'kysely';
import type {
  AttemptRecord,
  ClaimedNotification,
  DeliveryAttempt,
  NotificationRecord,
  NotificationStatus,
} from '../domain/notifications/notification.js';
import type { NotificationRepository } from '../domain/ports/store.js';
import { isUniqueViolation } from './create-db.js';
import type { Database, MerchantTable, NotificationAttemptTable } from './database.js';
import { previousWebhookSecret } from './merchant-repository.kysely.js';
import { paymentCreatedAt } from './payment-created-at.js';
import { shaped } from './query-shapes.js';
import { fromDbTime, optional, toDbTime } from './rows.js';
import type { WebhookSecretBox } from './webhook-secret-box.js';

type NotificationRow = Selectable<Database['notification']>;

/** Longest error text kept per attempt (the column is varchar(500)). */
const MAX_ERROR_LENGTH = 500;

function attemptRowToAttempt(row: Selectable<NotificationAttemptTable>): DeliveryAttempt {
  return {
    attemptNo: Number(row.attempt_no),
    attemptedAt: fromDbTime(row.attempted_at),
    durationMs: Number(row.duration_ms),
    httpStatus: optional(row.http_status) ?? undefined,
    error: optional(row.error),
  };
}

function notificationRowToRecord(row: NotificationRow, attempts: DeliveryAttempt[]): NotificationRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    payId: optional(row.pay_id),
    type: row.type,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    targetUrl: optional(row.target_url),
    status: row.status as NotificationStatus,
    attemptCount: Number(row.attempt_count),
    nextAttemptAt: fromDbTime(row.next_attempt_at),
    createdAt: fromDbTime(row.created_at),
    deliveredAt: row.delivered_at === null ? undefined : fromDbTime(row.delivered_at),
    attempts,
  };
}

/**
 * The delivery side of the outbox over Kysely. Claims are one `UPDATE … WHERE id IN (due ids) RETURNING`: on
 * PostgreSQL the due ids are selected `FOR UPDATE SKIP LOCKED`, so concurrent dispatchers on many nodes split the
 * work without waiting on each other; SQLite has one writer, which makes the statement a claim by itself.
 */
export class KyselyNotificationRepository implements NotificationRepository {
  private readonly db: Kysely<Database>;
  private readonly sqlite: boolean;

  /**
   * `secrets` opens the merchants' sealed webhook secrets for signing (issue 9, defect 4); `onDue` is called for every
   * notification a requeue makes due again (notifications/due-notifications.ts).
   */
  constructor(
    db: Kysely<Database>,
    private readonly secrets: WebhookSecretBox,
    private readonly onDue?: () => void,
  ) {
    this.db = db;
    this.sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  }

  async listByPayId(merchantId: string, payId: string): Promise<NotificationRecord[]> {
    const rows = await this.db
      .selectFrom('notification')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      // Through the (payment_created_at, pay_id) index.
      .where('payment_created_at', '=', paymentCreatedAt(payId))
      .where('pay_id', '=', payId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return this.withAttempts(rows);
  }

  async backlog(): Promise<{ pending: number; oldestDueAt?: Date; failed: number }> {
    // Both read through the (status, next_attempt_at) index.
    const pending = await this.db
      .selectFrom('notification')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('next_attempt_at').as('oldest')])
      .where('status', '=', 'PENDING')
      .executeTakeFirst();
    const failed = await this.db
      .selectFrom('notification')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'FAILED')
      .executeTakeFirst();
    const oldest = pending?.oldest;
    return {
      pending: Number(pending?.n ?? 0),
      ...(oldest ? { oldestDueAt: new Date(String(oldest)) } : {}),
      failed: Number(failed?.n ?? 0),
    };
  }

  async find(merchantId: string, id: string): Promise<NotificationRecord | undefined> {
    const row = await this.db
      .selectFrom('notification')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && (await this.withAttempts([row]))[0];
  }

  async requeue(merchantId: string, id: string, targetUrl: string, now: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('notification')
      .set({
        status: 'PENDING',
        target_url: targetUrl,
        attempt_count: 0,
        next_attempt_at: toDbTime(now),
        locked_until: null,
        delivered_at: null,
      })
      .where('merchant_id', '=', merchantId)
      .where('id', '=', id)
      .executeTakeFirst();
    const requeued = Number(r.numUpdatedRows) > 0;
    if (requeued) this.onDue?.();
    return requeued;
  }

  async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedNotification[]> {
    const at = toDbTime(now);
    const dueNow = () =>
      this.db
        .selectFrom('notification')
        .select('id')
        .where('status', '=', 'PENDING')
        .where('next_attempt_at', '<=', at)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at)]));
    // SQLite: a claim is a write (a writer round trip and a share of a commit) even when it claims nothing, and the
    // app looks after every POST. Looking first on the read connection (committed data only; anything committed
    // later is found by the next look) spares the write when nothing is due (issue 12). That look runs once per
    // POST, so its SQL is compiled once (query-shapes.ts).
    if (this.sqlite) {
      const look = shaped(this.db, 'notification.anyDue', ['PENDING', at, at, 1], () => dueNow().limit(1));
      if ((await this.db.executeQuery(look)).rows.length === 0) return [];
    }
    // On PostgreSQL the claim itself runs after every POST: compiled once as well.
    const lockedUntil = toDbTime(leaseUntil);
    const claim = shaped(this.db, 'notification.claim', [lockedUntil, 'PENDING', at, at, limit], () => {
      const due = dueNow().orderBy('next_attempt_at').limit(limit);
      return this.db
        .updateTable('notification')
        .set({ locked_until: lockedUntil })
        .where('id', 'in', this.sqlite ? due : due.forUpdate().skipLocked())
        .returningAll();
    });
    const rows = (await this.db.executeQuery(claim)).rows as NotificationRow[];
    if (rows.length === 0) return [];

    const merchantIds = [...new Set(rows.map((r) => r.merchant_id))];
    // One shape per number of merchants (at most the claim's limit, the dispatcher's concurrency).
    const secretsQuery = shaped(this.db, `merchant.webhookSecrets ${merchantIds.length}`, merchantIds, () =>
      this.db
        .selectFrom('merchant')
        .select([
          'merchant_id',
          'webhook_secret',
          'previous_webhook_secret',
          'previous_webhook_secret_expires_at',
          'sandbox',
        ])
        .where('merchant_id', 'in', merchantIds),
    );
    const secretRows = (await this.db.executeQuery(secretsQuery)).rows as Pick<
      Selectable<MerchantTable>,
      'merchant_id' | 'webhook_secret' | 'previous_webhook_secret' | 'previous_webhook_secret_expires_at' | 'sandbox'
    >[];
    // Each merchant's secrets opened once per claim, not once per notification. The previous one is kept while a
    // rotation's overlap lasts at claim time: the attempt is sent right after the claim.
    const merchants = new Map(
      secretRows.map((m) => [
        m.merchant_id,
        {
          webhookSecret: this.secrets.open(m.merchant_id, m.webhook_secret),
          previousWebhookSecret: previousWebhookSecret(m, this.secrets, now)?.secret,
          sandbox: Number(m.sandbox) === 1,
        },
      ]),
    );
    const claims: ClaimedNotification[] = [];
    for (const row of rows) {
      const merchant = merchants.get(row.merchant_id);
      if (!merchant || row.target_url === null) continue; // cannot happen: no merchant is ever deleted
      claims.push({
        id: row.id,
        merchantId: row.merchant_id,
        type: row.type,
        body: row.payload,
        targetUrl: row.target_url,
        attemptCount: Number(row.attempt_count),
        createdAt: fromDbTime(row.created_at),
        leaseUntil,
        webhookSecret: merchant.webhookSecret,
        ...(merchant.previousWebhookSecret !== undefined && { previousWebhookSecret: merchant.previousWebhookSecret }),
        sandbox: merchant.sandbox,
      });
    }
    return claims.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async defer(claims: readonly ClaimedNotification[], until: Date): Promise<void> {
    const byLease = new Map<number, string[]>();
    for (const c of claims) byLease.set(c.leaseUntil.getTime(), [...(byLease.get(c.leaseUntil.getTime()) ?? []), c.id]);
    for (const [lease, ids] of byLease) {
      await this.db
        .updateTable('notification')
        .set({ next_attempt_at: toDbTime(until), locked_until: null })
        .where('id', 'in', ids)
        .where('status', '=', 'PENDING')
        .where('locked_until', '=', toDbTime(new Date(lease)))
        .execute();
    }
  }

  async recordAttempts(records: AttemptRecord[]): Promise<void> {
    if (records.length === 0) return;
    const write = async (db: Kysely<Database>) => {
      for (const { claim, attempt, outcome } of records) {
        const lastQuery = shaped(db, 'notification_attempt.last', [claim.id], () =>
          db
            .selectFrom('notification_attempt')
            .select((eb) => eb.fn.max('attempt_no').as('n'))
            .where('notification_id', '=', claim.id),
        );
        const last = (await db.executeQuery(lastQuery)).rows[0] as { n: number | null } | undefined;
        // Every column is given (NULL when absent): one query shape.
        const row = {
          notification_id: claim.id,
          attempt_no: Number(last?.n ?? 0) + 1,
          attempted_at: toDbTime(attempt.attemptedAt),
          duration_ms: Math.round(attempt.durationMs),
          http_status: attempt.httpStatus ?? null,
          error: attempt.error?.slice(0, MAX_ERROR_LENGTH) ?? null,
        };
        await db.executeQuery(
          shaped(db, 'notification_attempt.insert', Object.values(row), () =>
            db.insertInto('notification_attempt').values(row),
          ),
        );
        const changes = {
          status: outcome.status,
          locked_until: null,
          ...(outcome.status === 'PENDING' && { next_attempt_at: toDbTime(outcome.nextAttemptAt) }),
          ...(outcome.status === 'DELIVERED' && { delivered_at: toDbTime(attempt.attemptedAt) }),
        };
        const leaseUntil = toDbTime(claim.leaseUntil);
        const update = shaped(
          db,
          `notification.recordAttempt ${Object.keys(changes).join(',')}`,
          [...Object.values(changes), claim.id, leaseUntil],
          () =>
            db
              .updateTable('notification')
              .set({ ...changes, attempt_count: sql<number>`attempt_count + 1` })
              .where('id', '=', claim.id)
              // A redelivery requested meanwhile replaced the claim: it stands, this attempt is only logged.
              .where('locked_until', '=', leaseUntil),
        );
        await db.executeQuery(update);
      }
    };
    // Two dispatchers log one notification at once only after a lease expired mid-attempt; retry the numbering once.
    for (let tries = 0; ; tries++) {
      try {
        if (this.db.isTransaction) return await write(this.db);
        return await this.db.transaction().execute((trx) => write(trx));
      } catch (error) {
        if (tries > 0 || !isUniqueViolation(error)) throw error;
      }
    }
  }

  async pruneFinished(before: Date, limit: number): Promise<number> {
    const cutoff = toDbTime(before);
    const prune = async (trx: Kysely<Database>) => {
      // Through the (status, next_attempt_at) index: a notification is due before it is delivered, so its
      // next_attempt_at is at or before its delivered_at. Locked rows belong to another node's prune or a redelivery.
      const candidates = trx
        .selectFrom('notification')
        .select('id')
        .where('status', 'in', ['DELIVERED', 'FAILED', 'NO_TARGET'])
        .where('next_attempt_at', '<', cutoff)
        .where((eb) => eb.or([eb('delivered_at', 'is', null), eb('delivered_at', '<', cutoff)]))
        .limit(limit);
      const ids = (await (this.sqlite ? candidates : candidates.forUpdate().skipLocked()).execute()).map((r) => r.id);
      if (ids.length === 0) return 0;
      await trx.deleteFrom('notification_attempt').where('notification_id', 'in', ids).execute();
      const r = await trx.deleteFrom('notification').where('id', 'in', ids).executeTakeFirst();
      return Number(r.numDeletedRows);
    };
    if (this.db.isTransaction) return prune(this.db);
    return this.db.transaction().execute(prune);
  }

  private async withAttempts(rows: NotificationRow[]): Promise<NotificationRecord[]> {
    if (rows.length === 0) return [];
    const attempts = await this.db
      .selectFrom('notification_attempt')
      .selectAll()
      .where(
        'notification_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('notification_id')
      .orderBy('attempt_no')
      .execute();
    const byId = new Map<string, DeliveryAttempt[]>();
    for (const a of attempts) {
      const list = byId.get(a.notification_id) ?? [];
      list.push(attemptRowToAttempt(a));
      byId.set(a.notification_id, list);
    }
    return rows.map((r) => notificationRowToRecord(r, byId.get(r.id) ?? []));
  }
}
