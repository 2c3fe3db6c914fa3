import DataLoader from 'dataloader';

/**
 * A DataLoader (no cache) whose batches go to the database one at a time (issue 12: a round trip to PostgreSQL costs
 * the event loop more than the statement costs the server). The first caller's batch goes on the next tick; callers
 * that come while a batch is on its way form the next one, sent as soon as that batch has answered. So every batch
 * holds only callers that asked before it was sent (a read it makes is never older than its callers' requests), and
 * under load one statement serves all the requests that arrived during the previous one's round trip.
 *
 * `send` answers a batch: one result (or Error, for that caller alone) per key, in order; if it throws, every caller
 * of the batch gets the error and the next batch goes as usual.
 */
export function inFlightBatches<K, V>(
  send: (keys: readonly K[]) => Promise<(V | Error)[]>,
  maxBatchSize: number,
): DataLoader<K, V> {
  let inFlight: Promise<void> | undefined;
  return new DataLoader<K, V>(
    (keys) => {
      const answer = send(keys);
      // Settles (never rejects: the callers get the error) once the batch has answered, then lets the next one go.
      const settled: Promise<void> = answer.then(
        () => landed(settled),
        () => landed(settled),
      );
      inFlight = settled;
      return answer;
    },
    {
      cache: false,
      maxBatchSize,
      batchScheduleFn: (dispatch) => {
        if (inFlight === undefined) process.nextTick(dispatch);
        else void inFlight.then(dispatch, dispatch);
      },
    },
  );
  function landed(batch: Promise<void>): void {
    if (inFlight === batch) inFlight = undefined;
  }
}
