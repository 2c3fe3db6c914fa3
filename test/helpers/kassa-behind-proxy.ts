import { createDb, type Db } from '../../src/storage/create-db.js';
import { type FreshDatabase, freshDatabase } from './dialects.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { startTestKassa, type TestKassa } from './test-kassa.js';

/** A Kassa whose PostgreSQL is reached through a TcpProxy the test controls, and the pieces to break and inspect. */
export interface KassaBehindProxy {
  t: TestKassa;
  proxy: TcpProxy;
  /** The database itself, reached directly (`target.db`) to check what was stored. */
  target: FreshDatabase;
  /** Kassa's database handle, through the proxy. */
  db: Db;
  close(): Promise<void>;
}

/**
 * Starts Kassa on a fresh PostgreSQL database behind a TCP proxy (poolSize 4; `queryTimeoutMs`, `connectTimeoutMs` as
 * createDb takes them),
 * for tests of connections cut, refused or stalled while PostgreSQL itself keeps running.
 */
export async function startKassaBehindProxy(
  options: { queryTimeoutMs?: number; connectTimeoutMs?: number } = {},
): Promise<KassaBehindProxy> {
  const target = await freshDatabase('postgres');
  const url = new URL(target.url);
  const proxy = await startTcpProxy(url.hostname, Number(url.port || 5432));
  url.port = String(proxy.port);
  const db = createDb({ dialect: 'postgres', url: url.toString(), poolSize: 4, ...options });
  const t = await startTestKassa('postgres', { db });
  return {
    t,
    proxy,
    target,
    db,
    async close() {
      await t.close();
      await proxy.close();
      await target.drop();
    },
  };
}
