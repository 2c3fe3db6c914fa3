/**
 * Counts the notifications this process made due for delivery: each one enqueued with a target URL (status PENDING)
 * and each one requeued for redelivery. A NO_TARGET notification (the merchant has no notification URL) is never
 * delivered and is not counted.
 *
 * The server wakes the outbox dispatcher after a POST only when this count moved while the POST was handled
 * (server/background-jobs.ts). A POST that made nothing due, such as a payment of a merchant without a notification
 * URL, then costs no claim (issue 12: on PostgreSQL a claim is a round trip, on SQLite a read; measured in
 * docs/decisions.md, "Waking the dispatcher only for due notifications"). The count moves when the write is queued,
 * before its commit: a POST that made one due answers after the commit, so the claim its wake starts finds it. A
 * write rolled back afterwards only wakes the dispatcher for nothing. Notifications other processes make due, and
 * retries, are found by the dispatcher's poll (NotificationDeliverySettings.pollIntervalMs), as before.
 */
export class DueNotifications {
  private made = 0;

  /** How many notifications this process has made due so far: compare two readings, never the value itself. */
  get count(): number {
    return this.made;
  }

  /** One more notification made due (the outbox and the requeue call this for every such write they queue). */
  madeDue(): void {
    this.made++;
  }
}
