/** How one call to an outside party (acquirer, directory server) is made: `signal` aborts when Kassa stops waiting. */
export interface CallOptions {
  signal?: AbortSignal;
}

/**
 * Runs `send` with a deadline: when it has not settled after `timeoutMs` (milliseconds), the signal passed to it is
 * aborted with `timeoutError()` as its reason and the returned promise rejects with that same error; a later answer
 * is dropped. An answer or a failure before the deadline passes through as it comes. The timer is unreferenced: a
 * call's deadline alone does not keep a process alive (a server's socket does).
 * Used by the decorators that hold the payment ports to Kassa's timing (DeadlineAcquirer, DeadlineDirectoryServer).
 */
export function callWithin<T>(
  timeoutMs: number,
  send: (options: CallOptions) => Promise<T>,
  timeoutError: () => Error,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      const error = timeoutError();
      controller.abort(error);
      reject(error);
    }, timeoutMs).unref();
    send({ signal: controller.signal }).then(
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
