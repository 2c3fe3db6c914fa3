/**
 * Notification delivery benchmark (DESIGN.md §5), loopback only: a local receiver, Kassa's real outbox, claims,
 * signing and undici delivery.
 *
 *   node --import tsx bench/notifications.bench.ts                  # SQLite in a temp file
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/db node --import tsx bench/notifications.bench.ts
 *
 * Prints (1) throughput: events/s to deliver a backlog of BENCH_EVENTS (default 2000) committed events, and
 * (2) lag from commit to first delivery, p50/p99 over BENCH_LAG_EVENTS (default 300) events committed one by one,
 * once with polling only (what another node sees) and once woken after the commit (what the app does after a POST).
 * Under bench/run.ts (a forked child) it also reports these figures over IPC.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../src/domain/ports/clock.js';
import { createNotificationDelivery, type NotificationDelivery } from '../src/notifications/notification-delivery.js';
import { createDb, migrateToLatest } from '../src/storage/create-db.js';
import { KyselyStore } from '../src/storage/kysely-store.js';
import { WebhookSecretBox } from '../src/storage/webhook-secret-box.js';
import { serveBenchChild } from './child-protocol.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const LAG_EVENTS = Number(process.env.BENCH_LAG_EVENTS ?? 300);
const LAG_SPACING_MS = 10; // one commit every 10 ms (~100 events/s offered)
const POLL_MS = 200; // the app's default
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16); // the app's default: 16
const DEADLINE_MS = 120_000; // every wait below gives up after this

const pgUrl = process.env.BENCH_DATABASE_URL;
const dir = mkdtempSync(join(tmpdir(), 'kassa-bench-'));
const db = pgUrl
  ? createDb({ dialect: 'postgres', url: pgUrl })
  : createDb({ dialect: 'sqlite', file: join(dir, 'b.db') });
await migrateToLatest(db);
const store = new KyselyStore(db.kysely, new WebhookSecretBox('bench-data-key-bench-data-key-bench-data-key-01'));

const firstSeen = new Map<string, number>(); // webhook-id → performance.now() of first arrival
const receiver = createServer((req, res) => {
  const id = String(req.headers['webhook-id']);
  if (!firstSeen.has(id)) firstSeen.set(id, performance.now());
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const merchantId = `bench_${randomUUID().slice(0, 8)}`;
await store.merchants.insert({
  merchantId,
  name: 'Bench',
  country: 'DK',
  currency: 'DKK',
  sandbox: true,
  webhookSecret: `whsec_${Buffer.from(randomUUID()).toString('base64')}`,
  creationDate: new Date(),
});
const payload = { type: 'payment.authorized', payId: '0'.repeat(32), status: 'OK', amount: { value: 12500 } };
const event = () => ({
  id: `msg_${randomUUID().replaceAll('-', '')}`,
  merchantId,
  payId: '0'.repeat(32),
  type: 'payment.authorized',
  payload,
  targetUrl: target,
  createdAt: new Date(),
});

async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('benchmark timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
const delivery = (): NotificationDelivery =>
  createNotificationDelivery(store.notifications, systemClock, { pollIntervalMs: POLL_MS, concurrency: CONCURRENCY });

// 1. Throughput: a committed backlog, then one dispatcher drains it.
const backlog = Array.from({ length: EVENTS }, event);
for (let i = 0; i < backlog.length; i += 100) {
  await store.transaction(async (tx) => {
    for (const e of backlog.slice(i, i + 100)) await tx.outbox.enqueue(e);
  });
}
const d1 = delivery();
const t0 = performance.now();
d1.start();
await until(() => backlog.every((e) => firstSeen.has(e.id)));
const received = performance.now() - t0;
await until(async () => {
  const r = await db.kysely
    .selectFrom('notification')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'DELIVERED')
    .executeTakeFirst();
  return Number(r?.n) >= EVENTS;
});
const recorded = performance.now() - t0;
await d1.stop();

// 2. Lag from commit to first delivery.
async function lag(wake: boolean): Promise<number[]> {
  const d = delivery();
  d.start();
  const commits = new Map<string, number>();
  for (let i = 0; i < LAG_EVENTS; i++) {
    const e = event();
    await store.transaction((tx) => tx.outbox.enqueue(e));
    commits.set(e.id, performance.now());
    if (wake) d.wake();
    await new Promise((r) => setTimeout(r, LAG_SPACING_MS));
  }
  await until(() => [...commits.keys()].every((id) => firstSeen.has(id)));
  await d.stop();
  return [...commits].map(([id, at]) => (firstSeen.get(id) ?? NaN) - at).sort((a, b) => a - b);
}
const polled = await lag(false);
const woken = await lag(true);

const ms = (v: number) => `${v.toFixed(1)} ms`;
console.log(
  `notification delivery, ${db.dialect}, loopback receiver, concurrency ${CONCURRENCY}, Node ${process.version}`,
);
console.log(
  `  throughput: ${EVENTS} events in ${ms(received)} → ${Math.round((EVENTS / received) * 1000)} events/s ` +
    `(all attempts recorded after ${ms(recorded)} → ${Math.round((EVENTS / recorded) * 1000)} events/s)`,
);
console.log(
  `  lag commit → first delivery, polling every ${POLL_MS} ms: p50 ${ms(percentile(polled, 0.5))}, p99 ${ms(percentile(polled, 0.99))}`,
);
console.log(
  `  lag commit → first delivery, woken after commit:  p50 ${ms(percentile(woken, 0.5))}, p99 ${ms(percentile(woken, 0.99))}`,
);

receiver.close();
await db.close();
rmSync(dir, { recursive: true, force: true });
serveBenchChild(
  {
    dialect: db.dialect,
    eventsPerSecond: Math.round((EVENTS / recorded) * 1000),
    lagP50Ms: percentile(woken, 0.5),
    lagP99Ms: percentile(woken, 0.99),
  },
  async () => {},
);
