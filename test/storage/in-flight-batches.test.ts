import { describe, expect, it } from 'vitest';
import { inFlightBatches } from '../../src/storage/in-flight-batches.js';

/** A `send` whose answers the test gives, batch by batch. */
function controlledSend() {
  const batches: { keys: readonly string[]; answer(values: string[]): void; fail(error: Error): void }[] = [];
  const send = (keys: readonly string[]) =>
    new Promise<(string | Error)[]>((resolve, reject) => {
      batches.push({ keys, answer: resolve, fail: reject });
    });
  return { batches, send };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const timedOut = () =>
  Object.assign(new Error('PostgreSQL did not answer a query within 1000 ms'), { code: 'ETIMEDOUT' });

describe('inFlightBatches', () => {
  it('callers that come while a batch is on its way form the next one, sent when that one has answered', async () => {
    const { batches, send } = controlledSend();
    const loader = inFlightBatches(send, 10);
    const first = loader.load('a');
    await tick();
    const second = [loader.load('b'), loader.load('c')];
    await tick();
    expect(batches.map((b) => b.keys)).toEqual([['a']]);
    batches[0]?.answer(['A']);
    expect(await first).toBe('A');
    await tick();
    expect(batches.map((b) => b.keys)).toEqual([['a'], ['b', 'c']]);
    batches[1]?.answer(['B', 'C']);
    expect(await Promise.all(second)).toEqual(['B', 'C']);
  });

  it('a batch that timed out fails the batch waiting behind it without sending it; the one after is sent', async () => {
    const { batches, send } = controlledSend();
    const loader = inFlightBatches(send, 10);
    const first = loader.load('a');
    await tick();
    const waiting = [loader.load('b'), loader.load('c')];
    const error = timedOut();
    batches[0]?.fail(error);
    await expect(first).rejects.toBe(error);
    for (const w of waiting) await expect(w).rejects.toBe(error);
    expect(batches).toHaveLength(1); // b and c were never sent
    const later = loader.load('d');
    await tick();
    expect(batches.map((b) => b.keys)).toEqual([['a'], ['d']]);
    batches[1]?.answer(['D']);
    expect(await later).toBe('D');
  });

  it('a batch that failed otherwise (a reset connection) still lets the one waiting behind it be sent', async () => {
    const { batches, send } = controlledSend();
    const loader = inFlightBatches(send, 10);
    const first = loader.load('a');
    await tick();
    const waiting = loader.load('b');
    const reset = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    batches[0]?.fail(reset);
    await expect(first).rejects.toBe(reset);
    await tick();
    expect(batches.map((b) => b.keys)).toEqual([['a'], ['b']]);
    batches[1]?.answer(['B']);
    expect(await waiting).toBe('B');
  });

  it('a timeout with no batch waiting behind it fails no later batch', async () => {
    const { batches, send } = controlledSend();
    const loader = inFlightBatches(send, 10);
    const first = loader.load('a');
    await tick();
    batches[0]?.fail(timedOut());
    await expect(first).rejects.toThrow();
    await tick();
    const later = loader.load('b');
    await tick();
    batches[1]?.answer(['B']);
    expect(await later).toBe('B');
  });
});
