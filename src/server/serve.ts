import cluster, { type Worker } from 'node:cluster';
import { buildApp, type Kassa } from '../app.js';
import type { Config } from '../config/config.js';
import { loadRuntimeSecrets, type RuntimeSecrets } from '../config/data-dir.js';
import { HostedLinks } from '../hosted/links.js';
import { buildServices, openDatabase } from '../services.js';
import { createDemoCheckout, ensureDemoMerchant } from './demo.js';
import { limitHeapGrowth } from './heap.js';
import { SHUTDOWN_DRAIN_MS, SHUTDOWN_GRACE_MS } from './lifecycle.js';

/** How long the primary waits for a worker to drain before it kills it. */
const WORKER_STOP_MS = SHUTDOWN_GRACE_MS + SHUTDOWN_DRAIN_MS + 15_000; // ms: the worker's own drain plus delivery stop and DB close
/** Delay before a crashed worker is replaced (keeps a crash loop from spinning a core). */
const WORKER_RESTART_DELAY_MS = 1_000;

/**
 * `kassa serve`: with KASSA_WORKERS=1 one process builds Kassa and listens; with N > 1 (PostgreSQL only, refused by
 * the config for SQLite) a primary prepares the data once and forks N workers (node:cluster) that accept on the same
 * port, each a whole Kassa (API, pages, notification delivery, sweeps) sharing PostgreSQL as separate nodes do
 * (DESIGN.md §3). SIGTERM/SIGINT shut down gracefully: every worker drains (requests being handled answer,
 * deliveries in flight finish) before the process exits 0.
 */
export async function serve(config: Config): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) return servePrimary(config);
  if (cluster.isWorker) return serveWorker(config);
  return serveSingle(config);
}

async function startKassa(config: Config): Promise<Kassa> {
  limitHeapGrowth(config.heapGrowingPercent);
  try {
    return await buildApp(config);
  } catch (error) {
    return couldNotStart(describeStartError(error, config));
  }
}

/** Prints why Kassa did not start as one line on stderr (no stack trace: the operator acts on the setting named). */
function couldNotStart(reason: string): never {
  console.error(`Kassa could not start: ${reason}`);
  process.exit(1);
}

/** An error of start-up, with the setting behind it where one is (the data dir when it cannot be created). */
function describeStartError(error: unknown, config: Config): string {
  const e = error as NodeJS.ErrnoException;
  const message = e instanceof Error ? e.message : String(error);
  if (typeof e?.path === 'string' && e.path.startsWith(config.dataDir)) return `${message} (KASSA_DATA_DIR)`;
  return message;
}

/**
 * Listens on KASSA_HOST:KASSA_PORT; a port taken or not allowed, or a host that is not this machine's, stops the
 * process with a line naming the setting instead of the listen error's stack trace.
 */
async function listen(kassa: Kassa, config: Config): Promise<void> {
  try {
    await kassa.app.listen({ host: config.host, port: config.port });
  } catch (error) {
    couldNotStart(describeListenError(error, config));
  }
}

/** The operator's reading of a listen error (Node's `listen` and `getaddrinfo` codes). */
export function describeListenError(error: unknown, config: Pick<Config, 'host' | 'port'>): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${config.port} is already in use (KASSA_PORT)`;
    case 'EACCES':
      return `port ${config.port} needs privileges this user does not have (KASSA_PORT; ports below 1024 need root or CAP_NET_BIND_SERVICE)`;
    case 'EADDRNOTAVAIL':
      return `${config.host} is not an address of this machine (KASSA_HOST)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
    case 'EAI_FAIL':
      return `the host name ${config.host} does not resolve (KASSA_HOST)`;
    default:
      return `cannot listen on ${config.host}:${config.port} (KASSA_HOST, KASSA_PORT): ${(error as Error)?.message ?? String(error)}`;
  }
}

/** Stops on SIGTERM/SIGINT (and, in a worker, when the primary is gone) after `stop` resolves, exit code 0. */
function onShutdownSignals(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    await stop(signal);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  if (cluster.isWorker) process.on('disconnect', () => void shutdown('primary gone'));
}

function banner(config: Config, demoCheckout: string | undefined, generatedCert: boolean): string {
  const scheme = config.tls.mode === 'proxy' ? 'http (behind a TLS proxy)' : 'https';
  const workers = config.workers > 1 ? `, ${config.workers} worker processes` : '';
  return [
    `Kassa listens on ${config.host}:${config.port} (${scheme}), database ${config.database.dialect}${workers}.`,
    `  API:       ${config.publicUrl}/api/v1`,
    `  API docs:  ${config.publicUrl}/docs`,
    `  OpenAPI:   ${config.publicUrl}/openapi.json`,
    demoCheckout
      ? `  Demo checkout (open it in a browser; test cards in docs/test-cards.md):\n    ${demoCheckout}`
      : '',
    generatedCert ? `  A self-signed certificate was generated into ${config.dataDir}.` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

async function serveSingle(config: Config): Promise<void> {
  const kassa = await startKassa(config);
  const { app, services } = kassa;
  // Listening first: a port already taken stops the start before the demo's key, shown only once, is printed.
  await listen(kassa, config);
  const demoCredentials = await ensureDemoMerchant(services, config);
  if (demoCredentials) console.log(demoCredentials);
  const demoCheckout = await createDemoCheckout(services, kassa.links, config);
  console.log(banner(config, demoCheckout, kassa.secrets.tls?.generated === true));
  onShutdownSignals(async (signal) => {
    app.log.info({ signal }, 'shutting down: draining in-flight requests');
    await kassa.close({ graceMs: SHUTDOWN_GRACE_MS });
  });
}

/** A worker: a whole Kassa accepting on the port the primary shares; silent but for its logs. */
async function serveWorker(config: Config): Promise<void> {
  const kassa = await startKassa(config);
  await listen(kassa, config);
  onShutdownSignals(async (signal) => {
    kassa.app.log.info({ signal, worker: cluster.worker?.id }, 'worker shutting down: draining in-flight requests');
    await kassa.close({ graceMs: SHUTDOWN_GRACE_MS });
  });
}

/**
 * The primary: migrates and loads (or on first start generates) the secrets once, so workers never race for them;
 * then forks the workers, replaces one that crashes, and on a signal stops them all. The demo merchant is created
 * once every worker listens, as with one process: a port already taken stops the start before the demo's key, shown
 * only once, is printed (and spent).
 */
async function servePrimary(config: Config): Promise<void> {
  let secrets: RuntimeSecrets | undefined;
  try {
    const db = await openDatabase(config);
    try {
      secrets = await loadRuntimeSecrets(config);
    } finally {
      await db.close();
    }
  } catch (error) {
    couldNotStart(describeStartError(error, config));
  }
  const generatedCert = secrets?.tls?.generated === true;
  /** The demo merchant (first start), its checkout link and the banner, once every worker listens. */
  const announce = async (): Promise<void> => {
    let demoCheckout: string | undefined;
    if (secrets !== undefined) {
      try {
        const db = await openDatabase(config);
        try {
          const services = buildServices(config, db, secrets);
          const demoCredentials = await ensureDemoMerchant(services, config);
          if (demoCredentials) console.log(demoCredentials);
          demoCheckout = await createDemoCheckout(
            services,
            new HostedLinks(secrets.tokenSecret, config.publicUrl),
            config,
          );
          services.threeDSSimulator?.stop();
        } finally {
          await db.close();
        }
      } catch (error) {
        console.error(`The demo merchant could not be prepared: ${describeStartError(error, config)}`);
      }
    }
    console.log(banner(config, demoCheckout, generatedCert));
  };

  let stopping = false;
  let everyoneListened = false;
  const listening = new Set<number>();
  const fork = (): Worker => {
    const worker = cluster.fork();
    worker.once('listening', () => {
      listening.add(worker.id);
      if (!everyoneListened && listening.size === config.workers) {
        everyoneListened = true;
        void announce();
      }
    });
    return worker;
  };
  cluster.on('exit', (worker, code, signal) => {
    const wasListening = listening.delete(worker.id);
    if (stopping) return;
    if (!wasListening && !everyoneListened) {
      // A worker that never listened will not listen on a retry either (bad certificate, port taken, …).
      console.error(`Kassa could not start: worker ${worker.id} exited (${signal ?? code}) before listening`);
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      process.exitCode = 1;
      return;
    }
    console.error(`worker ${worker.id} exited (${signal ?? code}); starting a new one`);
    setTimeout(() => {
      if (!stopping) fork();
    }, WORKER_RESTART_DELAY_MS).unref();
  });
  for (let i = 0; i < config.workers; i++) fork();

  onShutdownSignals(async (signal) => {
    stopping = true;
    console.log(`shutting down (${signal}): draining ${config.workers} workers`);
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            const kill = setTimeout(() => worker.process.kill('SIGKILL'), WORKER_STOP_MS);
            worker.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            worker.process.kill('SIGTERM');
          }),
      ),
    );
  });
}
