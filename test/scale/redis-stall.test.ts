/**
 * A Redis that stops answering (KASSA_REDIS_URL: the shared rate limits, failed-authentication counts and card-testing
 * velocity, issue 14) must not stop the API: every limiter lets a request through when its store cannot answer
 * (skipOnError, fail open), and a command that gets no answer ends after REDIS_COMMAND_TIMEOUT_MS instead of holding
 * the request for as long as TCP keeps the silent connection open. The real Redis of this machine behind a TCP proxy
 * that keeps the connection open and carries nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_COMMAND_TIMEOUT_MS } from '../../src/app.js';
import { DIALECTS } from '../helpers/dialects.js';
import { redisReachable, TEST_REDIS_URL } from '../helpers/redis.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const REDIS_URL = new URL(TEST_REDIS_URL);

describe.runIf(await redisReachable())('a Redis that stops answering', () => {
  let proxy: TcpProxy;
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    proxy = await startTcpProxy(REDIS_URL.hostname, Number(REDIS_URL.port || 6379));
    t = await startTestKassa(DIALECTS[0] ?? 'sqlite', {}, { KASSA_REDIS_URL: `redis://127.0.0.1:${proxy.port}/2` });
    merchant = await t.createMerchant();
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
  });

  it('requests go on, answered within a few command timeouts: the limiters let them through (fail open)', async () => {
    const token = () =>
      t.call('POST', '/authorization/oauth/token', {
        form: { grant_type: 'client_credentials', client_id: merchant.merchantId, client_secret: merchant.apiKey },
      });
    expect((await token()).status).toBe(200); // Redis answers: the limits count there
    expect(proxy.openConnections()).toBeGreaterThan(0);

    proxy.stall();
    const started = performance.now();
    const [issued, wrong, lookup] = await Promise.all([
      token(),
      t.call('POST', '/authorization/oauth/token', {
        form: { grant_type: 'client_credentials', client_id: merchant.merchantId, client_secret: 'guess' },
      }),
      t.call('GET', '/api/v2/payments/getByTransId/none', { auth: merchant }),
    ]);
    const elapsed = performance.now() - started;
    expect(issued.status).toBe(200);
    expect(wrong.status).toBe(401);
    expect(lookup.status).toBe(404);
    // Each request waits on at most a few commands in turn (precheck, the limiter, the failure count).
    expect(elapsed).toBeLessThan(5 * REDIS_COMMAND_TIMEOUT_MS);
  });
});
