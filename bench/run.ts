/**
 * `npm run bench`: runs every benchmark in turn and prints its figures (nothing is asserted).
 * BENCH_DATABASE_URL=postgres://… runs them on PostgreSQL instead of a temporary SQLite file.
 */
import { runPaymentsBench } from './payments.bench.js';

await runPaymentsBench();
console.log('\n# Notification delivery (outbox → signed POST to a loopback receiver)');
await import('./notifications.bench.js');
