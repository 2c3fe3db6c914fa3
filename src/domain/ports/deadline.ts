/** How one call to an outside party (acquirer, directory server) is made: `signal` aborts when Kassa stops waiting. */
export interface CallOptions {
  signal?: AbortSignal;
}

/**
 * `answer` with a deadline: when it has not settled after `timeoutMs` (milliseconds), the returned promise rejects
 * with `timeoutError()` and a later settlement of `answer` is dropped (never unhandled); an answer or a failure before
 * the deadline passes through as it comes. The timer is unreferenced: a call's deadline alone does not keep a process
 * alive (a server's socket does). The race under callWithin and the storage's query deadline
 * (storage/postgres-query-deadline.ts).
 */
export function settleWithin<T>(timeoutMs: number, answer: Promise<T>, timeoutError: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timeoutError()), timeoutMs).unref();
    answer.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * Runs `send` with a deadline (settleWithin): at the deadline the signal passed to it is aborted with `timeoutError()`
 * as its reason, and the returned promise rejects with that same error. A `send` that throws at once rejects it.
 * Used by the decorators that hold the payment ports to Kassa's timing (DeadlineAcquirer, DeadlineDirectoryServer).
 */
export function callWithin<T>(
  timeoutMs: number,
  send: (options: CallOptions) => Promise<T>,
  timeoutError: () => Error,
): Promise<T> {
  const controller = new AbortController();
  let answer: Promise<T>;
  try {
    answer = send({ signal: controller.signal });
  } catch (error) {
    return Promise.reject(error);
  }
  return settleWithin(timeoutMs, answer, () => {
    const error = timeoutError();
    controller.abort(error);
    return error;
  });
}

/**
 * Whether an error says the other side answered nothing in time: `code` ETIMEDOUT, a socket's or a deadline's that
 * says so (storage/postgres-query-deadline.ts: a query or a connection). Callers that would try that side once more
 * after another failure (a reset connection) do not after this one: it would only wait out a second timeout.
 */
export function isTimeout(error: unknown): error is Error {
  return error instanceof Error && (error as { code?: unknown }).code === 'ETIMEDOUT';
}
