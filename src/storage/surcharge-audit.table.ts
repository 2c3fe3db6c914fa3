/**
 * Row type of `surcharge_audit` (migration 2026-11-21-0003). Kept beside its repository rather than in
 * `database.ts`; the repository adds it to the Kysely schema with `withTables`.
 */
export interface SurchargeAuditTable {
  merchant_id: string;
  /** 1, 2, … per merchant. */
  seq: number;
  /** ENABLE | DISABLE */
  action: string;
  actor: string;
  /** SurchargeSettings as JSON. */
  settings_before: string;
  settings_after: string;
  created_at: string;
}
