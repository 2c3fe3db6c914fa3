import type { Kysely, Selectable } from 'kysely';
import type { SurchargeSettingsRepository } from '../domain/ports/store.js';
import type {
  SurchargeAuditAction,
  SurchargeAuditEntry,
  SurchargeSettings,
} from '../domain/surcharge/surcharge-settings.js';
import type { Database, SurchargeAuditTable } from './database.js';
import { fromDbTime, fromJson, toDbTime } from './rows.js';

type SurchargeDatabase = Database & { surcharge_audit: SurchargeAuditTable };

/** Maps an audit row to the domain entry. */
export function surchargeAuditRowToEntry(row: Selectable<SurchargeAuditTable>): SurchargeAuditEntry {
  return {
    merchantId: row.merchant_id,
    seq: Number(row.seq),
    action: row.action as SurchargeAuditAction,
    actor: row.actor,
    at: fromDbTime(row.created_at),
    before: JSON.parse(row.settings_before) as SurchargeSettings,
    after: JSON.parse(row.settings_after) as SurchargeSettings,
  };
}

/** Surcharge settings in `merchant.surcharge` (JSON text) and their audit log in `surcharge_audit`. */
export class KyselySurchargeSettingsRepository implements SurchargeSettingsRepository {
  private readonly db: Kysely<SurchargeDatabase>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  async get(
    merchantId: string,
    options: { forUpdate?: boolean } = {},
  ): Promise<{ settings: SurchargeSettings | undefined } | undefined> {
    if (options.forUpdate) {
      // A no-op write takes the row lock on PostgreSQL and the database write lock on SQLite before the read, on both
      // dialects alike; a read-then-write SQLite transaction could otherwise fail with SQLITE_BUSY when another
      // process (the CLI beside the server) writes in between.
      await this.db
        .updateTable('merchant')
        .set((eb) => ({ surcharge: eb.ref('surcharge') }))
        .where('merchant_id', '=', merchantId)
        .execute();
    }
    const row = await this.db
      .selectFrom('merchant')
      .select('surcharge')
      .where('merchant_id', '=', merchantId)
      .executeTakeFirst();
    return row && { settings: fromJson<SurchargeSettings>(row.surcharge) };
  }

  async set(merchantId: string, settings: SurchargeSettings): Promise<boolean> {
    const r = await this.db
      .updateTable('merchant')
      .set({ surcharge: JSON.stringify(settings) })
      .where('merchant_id', '=', merchantId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async appendAudit(entry: Omit<SurchargeAuditEntry, 'seq'>): Promise<SurchargeAuditEntry> {
    const last = await this.db
      .selectFrom('surcharge_audit')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('merchant_id', '=', entry.merchantId)
      .executeTakeFirst();
    const seq = Number(last?.seq ?? 0) + 1;
    await this.db
      .insertInto('surcharge_audit')
      .values({
        merchant_id: entry.merchantId,
        seq,
        action: entry.action,
        actor: entry.actor,
        settings_before: JSON.stringify(entry.before),
        settings_after: JSON.stringify(entry.after),
        created_at: toDbTime(entry.at),
      })
      .execute();
    return { ...entry, seq };
  }

  async listAudit(merchantId: string): Promise<SurchargeAuditEntry[]> {
    const rows = await this.db
      .selectFrom('surcharge_audit')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .orderBy('seq', 'asc')
      .execute();
    return rows.map(surchargeAuditRowToEntry);
  }
}
