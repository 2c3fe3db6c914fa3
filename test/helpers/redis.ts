/** Redis of this machine (issue 14: Redis runs locally); tests that need it skip when it does not answer. */
export const TEST_REDIS_URL = process.env.KASSA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether the Redis at `url` answers PING within a second. */
export async function redisReachable(url: string = TEST_REDIS_URL): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000 });
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
