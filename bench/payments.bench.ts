/**
 * Payment API load benchmark: a real Kassa (HTTPS, SQLite file or PostgreSQL) in this process, autocannon as the
 * client over loopback. Bounded: each phase runs a fixed number of seconds. Prints figures, asserts nothing.
 *
 *   npm run bench                         # SQLite
 *   BENCH_DATABASE_URL=postgres://… npm run bench
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { luhnCheckDigit } from '../src/domain/payments/card-checks.js';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

function pan(scenario: string): string {
  const p = `40000000000${scenario}`;
  return p + luhnCheckDigit(p);
}

export async function runPaymentsBench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kassa-bench-'));
  const config = loadConfig({
    KASSA_DATA_DIR: dataDir,
    KASSA_HOST: '127.0.0.1',
    KASSA_PORT: '0',
    LOG_LEVEL: 'warn',
    ...(process.env.BENCH_DATABASE_URL && { DATABASE_URL: process.env.BENCH_DATABASE_URL }),
  });
  const kassa = await buildApp(config);
  await kassa.app.listen({ host: '127.0.0.1', port: 0 });
  const address = kassa.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `https://127.0.0.1:${port}`;
  const merchant = await kassa.services.merchants.createMerchant({
    merchantId: `bench-${Date.now()}`,
    country: 'DK',
    currency: 'DKK',
    sandbox: true,
  });
  const authorization = `Basic ${Buffer.from(`${merchant.merchant.merchantId}:${merchant.apiKey}`).toString('base64')}`;
  let n = 0;
  const body = () =>
    JSON.stringify({
      transId: `bench-${process.pid}-${n++}`,
      amount: { value: 12_500, currency: 'DKK' },
      paymentMethods: {
        type: 'CARD',
        integrationType: 'DIRECT',
        card: { number: pan('1000'), expiryDate: '203012', securityCode: '123' },
      },
      browserInfo: { acceptHeaders: 'text/html', javaScriptEnabled: true, language: 'da', userAgent: 'bench' },
    });

  console.log(`\n# POST /api/v1/payments (DIRECT, 3-D Secure Y, AUTOMATIC capture) — ${config.database.dialect}`);
  const create = await autocannon({
    url: `${url}/api/v1/payments`,
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: [
      {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: body() }),
      },
    ],
  });
  report(create);

  const last = await kassa.services.payments.getByTransId(merchant.merchant.merchantId, `bench-${process.pid}-0`);
  console.log(`\n# GET /api/v1/payments/getByPayId/{payID} — ${config.database.dialect}`);
  const read = await autocannon({
    url: `${url}/api/v1/payments/getByPayId/${last.payId}`,
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: { authorization },
  });
  report(read);
  await kassa.close();
}

function report(r: autocannon.Result): void {
  const ok = r['2xx'];
  console.log(
    `requests/s ${r.requests.average.toFixed(0)} (2xx ${ok} of ${r.requests.total}, non-2xx ${r.non2xx}, errors ${r.errors})` +
      ` | latency ms p50 ${r.latency.p50} p99 ${r.latency.p99} max ${r.latency.max}`,
  );
}
