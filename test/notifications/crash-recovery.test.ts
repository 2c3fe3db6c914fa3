import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { directPayment, testPan } from '../helpers/cards.js';
import { kassaCli, type ServerProcess, serveEnv, startServerProcess } from '../helpers/cli.js';
import { DIALECTS, type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import { freePort } from '../helpers/test-kassa.js';
import { startReceiver, type TestReceiver } from './webhook-receiver.js';

const PAYMENTS = 6; // each commits 2 events: authentication and payment.authorized

/**
 * Never lost (DESIGN.md §5): a `kassa serve` process killed with SIGKILL while deliveries are in flight loses no
 * committed event. After a restart every event reaches the receiver at least once: the ones that were waiting at
 * once, the ones in flight when their claim's lease (KASSA_NOTIFICATION_LEASE) expires.
 */
describe.each(DIALECTS)('crash recovery of notification delivery (%s)', (dialect) => {
  let database: FreshDatabase | undefined;
  let receiver: TestReceiver | undefined;
  let server: ServerProcess | undefined;
  let dataDir: string | undefined;

  afterEach(async () => {
    await server?.stop('SIGKILL');
    await receiver?.close();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('after SIGKILL mid-delivery and a restart, every committed event is delivered at least once', async () => {
    database = await freshDatabase(dialect);
    receiver = await startReceiver();
    receiver.delayMs = 60_000; // hold every request: deliveries stay in flight until the kill
    dataDir = mkdtempSync(join(tmpdir(), 'kassa-crash-'));
    const port = await freePort();
    // A claim's lease of 6 s instead of the default 12 s: the restarted node delivers the claims cut off by the kill 6 s
    // after they were made. The lease shortens the delivery timeout to 5 s (server/background-jobs.ts); the kill comes
    // before any held attempt times out, which the test checks (no attempt recorded before the restart).
    const env = serveEnv(port, {
      DATABASE_URL: database.url,
      KASSA_DATA_DIR: dataDir,
      KASSA_NOTIFICATION_LEASE: '6000',
    });
    const created = await kassaCli(
      [
        'merchant',
        'create',
        '--id',
        'crashshop',
        '--country',
        'DK',
        '--currency',
        'DKK',
        '--sandbox',
        '--webhook-url',
        receiver.url,
        '--json',
      ],
      env,
    );
    const { merchantId, apiKey } = JSON.parse(created.stdout) as { merchantId: string; apiKey: string };

    server = await startServerProcess(env);
    await server.waitFor(/Kassa listens on/);
    const https = new Agent({ connect: { ca: readFileSync(inject('tlsCertFile'), 'utf8') } });
    const authorization = `Basic ${Buffer.from(`${merchantId}:${apiKey}`).toString('base64')}`;
    const payIds = await Promise.all(
      Array.from({ length: PAYMENTS }, async () => {
        const res = await fetch(`https://127.0.0.1:${port}/api/v1/payments`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify(directPayment(testPan('40000000', '1000'))),
          dispatcher: https,
        });
        expect(res.status).toBe(201);
        return ((await res.json()) as { payId: string }).payId;
      }),
    );
    await https.close();
    await receiver.waitFor(4);
    const inFlight = new Set(receiver.received.map((r) => r.id));
    await server.stop('SIGKILL');

    const committed = await database.db.kysely
      .selectFrom('notification')
      .select(['id', 'pay_id', 'attempt_count'])
      .execute();
    expect(committed).toHaveLength(PAYMENTS * 2);
    // Killed mid-delivery, not after a timeout: what the restart delivers, it delivers because the claims expired.
    expect(committed.map((n) => n.attempt_count)).toEqual(committed.map(() => 0));
    expect(new Set(committed.map((n) => n.pay_id))).toEqual(new Set(payIds));
    expect(receiver.deliveredCounts().size).toBe(0); // nothing was answered before the kill

    receiver.delayMs = 0;
    server = await startServerProcess(env);
    await server.waitFor(/Kassa listens on/);
    const delivered = () => committed.filter((n) => (receiver?.deliveredCounts().get(n.id) ?? 0) >= 1).length;
    await vi.waitFor(() => expect(delivered()).toBe(committed.length), { timeout: 40_000, interval: 100 });
    // The deliveries cut off by the kill arrived again after the restart (their claims expired).
    for (const id of inFlight) expect(receiver.received.filter((r) => r.id === id).length).toBeGreaterThanOrEqual(2);
    const statuses = async () =>
      (await database?.db.kysely.selectFrom('notification').select('status').execute())?.map((r) => r.status);
    await vi.waitFor(async () => expect(new Set(await statuses())).toEqual(new Set(['DELIVERED'])), {
      timeout: 5_000,
      interval: 100,
    });
  }, 90_000);
});
