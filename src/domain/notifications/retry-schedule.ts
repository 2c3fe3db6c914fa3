/**
 * When a notification is attempted (DESIGN.md §5): immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h
 * after the previous failure (about 28 h in all), each delay with ±10 % jitter; after the 8th failed attempt the
 * notification is FAILED (manual redelivery remains).
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  0, // first attempt: as soon as the event is committed
  5_000, // 5 s
  5 * 60_000, // 5 min
  30 * 60_000, // 30 min
  2 * 3_600_000, // 2 h
  5 * 3_600_000, // 5 h
  10 * 3_600_000, // 10 h
  10 * 3_600_000, // 10 h
];

/** Total number of attempts before a notification is FAILED. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;

/** Jitter as a fraction of each delay (±10 %), so that retries of many events do not arrive in lock-step. */
export const RETRY_JITTER = 0.1;

/** Any 2xx answer within this time counts as delivered (DESIGN.md §5). */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * When to try again after `attemptsMade` attempts (≥ 1) have failed.
 * @param random uniform in [0, 1) (the caller's randomness; a test passes a constant).
 * @returns the next attempt's time, or undefined when the schedule is exhausted (the notification is FAILED).
 */
export function nextAttemptAt(attemptsMade: number, failedAt: Date, random: () => number): Date | undefined {
  const delay = RETRY_DELAYS_MS[attemptsMade];
  if (attemptsMade < 1 || delay === undefined) return undefined;
  const jitter = delay * RETRY_JITTER * (2 * random() - 1);
  return new Date(failedAt.getTime() + Math.round(delay + jitter));
}

/** Whether an HTTP status means "delivered": any 2xx (redirects are not followed and count as failures). */
export function isDeliveredStatus(status: number): boolean {
  return status >= 200 && status < 300;
}
