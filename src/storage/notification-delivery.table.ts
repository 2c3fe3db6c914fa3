import type { NotificationTable } from './database.js';

/**
 * Row types added by migration 2026-11-21-0002 (the `notification.locked_until` claim column and the
 * `notification_attempt` log). Kept beside their repository rather than in `database.ts`; the repository adds them
 * to the Kysely schema with `withTables`.
 */
export type NotificationDeliveryTables = {
  notification: NotificationTable & { locked_until: string | null };
  notification_attempt: NotificationAttemptTable;
};

export interface NotificationAttemptTable {
  notification_id: string;
  /** 1, 2, … per notification. */
  attempt_no: number;
  attempted_at: string;
  /** Milliseconds. */
  duration_ms: number;
  http_status: number | null;
  error: string | null;
}
