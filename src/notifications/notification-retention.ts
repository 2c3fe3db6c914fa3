import { deleteInBatches } from '../domain/ports/batched-delete.js';
import type { Clock } from '../domain/ports/clock.js';
import type { NotificationRepository } from '../domain/ports/store.js';

/** Notifications deleted per transaction: short transactions, so deliveries and payments never wait long. */
export const RETENTION_BATCH = 500;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Keeps the outbox bounded (issue 12): deletes finished notifications — delivered, given up (FAILED) or without a
 * target — older than `retentionDays` (KASSA_NOTIFICATION_RETENTION_DAYS), with their attempt logs, in batches until
 * none is left. PENDING notifications are never touched. Every node may run it at once (rows locked by another
 * node's prune are skipped). @returns how many notifications it deleted.
 */
export async function pruneFinishedNotifications(
  notifications: Pick<NotificationRepository, 'pruneFinished'>,
  clock: Clock,
  retentionDays: number,
): Promise<number> {
  const before = new Date(clock.now().getTime() - retentionDays * DAY_MS);
  return deleteInBatches((limit) => notifications.pruneFinished(before, limit), RETENTION_BATCH);
}
