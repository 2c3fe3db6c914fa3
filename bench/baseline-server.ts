/**
 * The benchmark's yardstick, run as a child process of bench/run.ts: a bare Fastify HTTPS server with Kassa's TLS
 * settings (the same certificate, TLS ≥ 1.2) answering a small JSON POST with a small JSON body. Every other figure
 * of the benchmark is reported as a ratio to this server's requests/s measured in the same run.
 *
 * argv: <certFile> <keyFile>. Sends `{ ready: url }` over IPC; answers `stats` with `{ maxRssKb }`; exits on `stop`.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { serveBenchChild } from './child-protocol.js';

const [certFile, keyFile] = process.argv.slice(2);
if (!certFile || !keyFile) throw new Error('usage: baseline-server.ts <certFile> <keyFile>');

const app = Fastify({
  https: { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), minVersion: 'TLSv1.2' },
  logger: false,
});
app.post('/echo', async (request) => {
  const body = request.body as { transId?: string };
  return { transId: body.transId ?? null, status: 'OK' };
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
serveBenchChild({ url: `https://127.0.0.1:${port}` }, () => app.close());
