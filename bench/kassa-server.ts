/**
 * A real Kassa (HTTPS, the given database) as a child process of bench/run.ts, as `kassa serve` builds it.
 *
 * env: KASSA_DATA_DIR (with the run's certificate files), DATABASE_URL, KASSA_TLS_CERT/KEY. On start it creates the
 * merchant `bench` (or issues it a new API key when a previous server of this run created it) and one payment, and
 * sends `{ ready: { url, authorization, payId } }` over IPC (see child-protocol.ts). Its `stats` answers carry its
 * answers' durations timed inside the server (timeAnswers) and, on SQLite, the group commit's COMMIT durations, each
 * since the previous answer.
 */
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { limitHeapGrowth } from '../src/server/heap.js';
import { serveBenchChild, timeAnswers } from './child-protocol.js';
import { benchMerchantAuthorization, createPayments } from './workload.js';

// Load shedding off: the benchmark measures what the server completes; a shared machine would otherwise get 503s.
const config = loadConfig({
  ...process.env,
  KASSA_HOST: '127.0.0.1',
  KASSA_PORT: '0',
  LOG_LEVEL: 'warn',
  KASSA_MAX_EVENT_LOOP_DELAY: '0',
});
limitHeapGrowth(config.heapGrowingPercent); // as `kassa serve` does (src/server/serve.ts)
const kassa = await buildApp(config);
const answers = timeAnswers(kassa.app.server);
await kassa.app.listen({ host: '127.0.0.1', port: 0 });
const address = kassa.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
const url = `https://127.0.0.1:${port}`;

const authorization = await benchMerchantAuthorization(kassa.services.merchants);

// One payment through the API: the preload copies it, `npm run bench:instructions` reads it, and it warms the path.
const [payId] = await createPayments(url, authorization, 1, `bench-first-${process.pid}`, 1);

serveBenchChild({ url, authorization, payId, dialect: config.database.dialect }, () => kassa.close(), {
  answers,
  commits: kassa.db.groupCommit?.commitDurations,
});
