import DataLoader from 'dataloader';
import { isTimeout } from '../domain/ports/deadline.js';

/**
 * A DataLoader (no cache) whose batches go to the database one at a time (issue 12: a round trip to PostgreSQL costs
 * the event loop more than the statement costs the server). The first caller's batch goes on the next tick; callers
 * that come while a batch is on its way form the next one, sent as soon as that batch has answered. So every batch
 * holds only callers that asked before it was sent (a read it makes is never older than its callers' requests), and
 * under load one statement serves all the requests that arrived during the previous one's round trip.
 *
 * `send` answers a batch: one result (or Error, for that caller alone) per key, in order; if it throws, every caller
 * of the batch gets the error and the next batch goes as usual — unless the error says the database answered nothing
 * in time (`code` ETIMEDOUT: a query or connect deadline, postgres-query-deadline.ts): then the batch that waited
 * behind it gets the same error without being sent, as its callers already waited that long for a database that did
 * not answer (one timeout per request, not one more for each batch ahead of it). Nothing of a batch not sent is
 * written. The batch after that one is sent as usual.
 */
export function inFlightBatches<K, V>(
  send: (keys: readonly K[]) => Promise<(V | Error)[]>,
  maxBatchSize: number,
): DataLoader<K, V> {
  /** The batch on its way; it settles (never rejects) with its timeout error, if it timed out. */
  let inFlight: Promise<Error | undefined> | undefined;
  /** The error the batch being dispatched now gets instead of being sent. */
  let failWith: Error | undefined;
  return new DataLoader<K, V>(
    (keys) => {
      if (failWith !== undefined) {
        const error = failWith;
        failWith = undefined;
        return Promise.reject(error);
      }
      const answer = send(keys);
      const settled: Promise<Error | undefined> = answer.then(
        () => landed(settled, undefined),
        (error: unknown) => landed(settled, isTimeout(error) ? error : undefined),
      );
      inFlight = settled;
      return answer;
    },
    {
      cache: false,
      maxBatchSize,
      batchScheduleFn: (dispatch) => {
        if (inFlight === undefined) process.nextTick(dispatch);
        else
          void inFlight.then((failure) => {
            failWith = failure; // read by the batch function, which dispatch calls synchronously
            dispatch();
          });
      },
    },
  );
  function landed(batch: Promise<Error | undefined>, failure: Error | undefined): Error | undefined {
    if (inFlight === batch) inFlight = undefined;
    return failure;
  }
}
