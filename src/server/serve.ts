import { buildApp, type Kassa } from '../app.js';
import type { Config } from '../config/config.js';
import { createDemoCheckout, ensureDemoMerchant } from './demo.js';

/**
 * `kassa serve`: builds Kassa, creates the demo merchant on first start, listens, prints where to find it, and shuts
 * down gracefully on SIGTERM/SIGINT (requests being handled answer, deliveries in flight finish, then exit 0).
 */
export async function serve(config: Config): Promise<void> {
  let kassa: Kassa;
  try {
    kassa = await buildApp(config);
  } catch (error) {
    console.error(`Kassa could not start: ${(error as Error).message}`);
    process.exit(1);
  }
  const { app, services } = kassa;
  const demoCredentials = await ensureDemoMerchant(services);
  if (demoCredentials) console.log(demoCredentials);
  await app.listen({ host: config.host, port: config.port });
  const demoCheckout = await createDemoCheckout(services, kassa.links, config);
  const scheme = config.tls.mode === 'proxy' ? 'http (behind a TLS proxy)' : 'https';
  console.log(
    [
      `Kassa listens on ${config.host}:${config.port} (${scheme}), database ${config.database.dialect}.`,
      `  API:       ${config.publicUrl}/api/v1`,
      `  API docs:  ${config.publicUrl}/docs`,
      `  OpenAPI:   ${config.publicUrl}/openapi.json`,
      demoCheckout
        ? `  Demo checkout (open it in a browser; test cards in docs/test-cards.md):\n    ${demoCheckout}`
        : '',
      kassa.secrets.tls?.generated ? `  A self-signed certificate was generated into ${config.dataDir}.` : '',
    ]
      .filter(Boolean)
      .join('\n'),
  );
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: draining in-flight requests');
    await kassa.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
