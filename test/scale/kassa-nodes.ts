/**
 * Several `kassa serve` processes on one PostgreSQL database, as a deployment of N nodes behind a load balancer runs
 * them (DESIGN.md §3): same secrets, one notification receiver, one acquirer settlement file. Used by the scale-out,
 * fault and reliability tests.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { Agent, fetch } from 'undici';
import { inject } from 'vitest';
import { MerchantService } from '../../src/domain/merchants/merchant-service.js';
import { systemClock } from '../../src/domain/ports/clock.js';
import { SurchargeSettingsService } from '../../src/domain/surcharge/surcharge-settings-service.js';
import {
  FileSettlementLedger,
  type SettlementRecord,
} from '../../src/integrations/acquirer-simulator/settlement-ledger.js';
import { cryptoIds } from '../../src/services.js';
import { migrateToLatest } from '../../src/storage/create-db.js';
import { KyselyStore } from '../../src/storage/kysely-store.js';
import { WebhookSecretBox } from '../../src/storage/webhook-secret-box.js';
import { type ServerProcess, startServerProcess } from '../helpers/cli.js';
import { type FreshDatabase, freshDatabase } from '../helpers/dialects.js';
import type { CallOptions, CallResult } from '../helpers/test-kassa.js';
import { freePort } from '../helpers/test-kassa.js';

/** The data key every node shares (card vault, webhook secrets). */
const DATA_KEY = 'scale-test-data-key-shared-by-every-node-0123456';

/** One notification as the merchant's receiver got it (signature verified). */
export interface ReceivedNotification {
  webhookId: string;
  type: string;
  payId?: string;
  body: string;
}

/** A merchant's notification endpoint: verifies every signature, counts deliveries per `webhook-id`. */
export class NotificationReceiver {
  readonly deliveries: ReceivedNotification[] = [];
  readonly badSignatures: string[] = [];
  private server?: Server;
  url = '';

  constructor(private secret = '') {}

  setSecret(secret: string): void {
    this.secret = secret;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = req.headers as Record<string, string>;
        try {
          new Webhook(this.secret).verify(body, headers);
          const payload = JSON.parse(body) as { type: string; payId?: string };
          this.deliveries.push({
            webhookId: headers['webhook-id'] ?? '',
            type: payload.type,
            payId: payload.payId,
            body,
          });
        } catch {
          this.badSignatures.push(headers['webhook-id'] ?? '?');
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/kassa-events`;
  }

  /** Distinct `webhook-id`s received (the receiver's dedupe). */
  ids(): Set<string> {
    return new Set(this.deliveries.map((d) => d.webhookId));
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

export interface KassaNode {
  index: number;
  port: number;
  url: string;
  process: ServerProcess;
}

export interface KassaNodes {
  database: FreshDatabase;
  nodes: KassaNode[];
  receiver: NotificationReceiver;
  ledger: FileSettlementLedger;
  merchant: { merchantId: string; apiKey: string; keyId: string; webhookSecret: string };
  merchants: MerchantService;
  /** The same path on node `i` (an absolute URL of another node is moved to node `i`, as a load balancer would). */
  urlOn(i: number, pathOrUrl: string): string;
  call(i: number, method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** Starts node `i` again (after a kill) on the same port and data. */
  restart(i: number): Promise<void>;
  kill(i: number): Promise<void>;
  settlement(): Promise<SettlementRecord[]>;
  close(): Promise<void>;
}

const CHILD_PIDS = (pid: number) => {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
};

/**
 * Starts `count` nodes on a fresh PostgreSQL database with one sandbox merchant (notifications to a local receiver,
 * surcharging of commercial Visa cards at 1.8 % enabled). `env` adds settings to every node.
 */
export async function startKassaNodes(
  count: number,
  env: Record<string, string> = {},
  options: {
    postgresAdminUrl?: string;
    /** The DATABASE_URL the nodes get for the test database's URL (e.g. through a TCP proxy the test cuts). */
    databaseUrl?: (url: string) => string;
  } = {},
): Promise<KassaNodes> {
  const database = await freshDatabase('postgres', options.postgresAdminUrl);
  await migrateToLatest(database.db);
  const store = new KyselyStore(database.db.kysely, new WebhookSecretBox(DATA_KEY));
  const merchants = new MerchantService(store, systemClock, cryptoIds);
  const receiver = new NotificationReceiver();
  await receiver.start();
  const created = await merchants.createMerchant({
    merchantId: `shop_${Math.random().toString(36).slice(2, 8)}`,
    country: 'DK',
    currency: 'DKK',
    sandbox: true,
    webhookUrl: receiver.url,
  });
  receiver.setSecret(created.merchant.webhookSecret);
  await new SurchargeSettingsService(store, systemClock).enable(
    created.merchant.merchantId,
    [{ brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 180 }],
    'scale-test',
  );
  const dir = mkdtempSync(join(tmpdir(), 'kassa-nodes-'));
  const ledger = new FileSettlementLedger(join(dir, 'settlement.jsonl'));
  const ca = readFileSync(inject('tlsCertFile'), 'utf8');
  const dispatcher = new Agent({ connect: { ca } });
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const envOf = (i: number): Record<string, string> => ({
    DATABASE_URL: options.databaseUrl?.(database.url) ?? database.url,
    KASSA_HOST: '127.0.0.1',
    KASSA_PORT: String(ports[i]),
    KASSA_PUBLIC_URL: `https://127.0.0.1:${ports[i]}`,
    KASSA_DATA_DIR: join(dir, `node-${i}`),
    KASSA_TLS_CERT: inject('tlsCertFile'),
    KASSA_TLS_KEY: inject('tlsKeyFile'),
    KASSA_TOKEN_SECRET: 'scale-test-token-secret-shared-by-every-node-0123',
    KASSA_DATA_KEY: DATA_KEY,
    KASSA_ACQUIRER_SIMULATOR_LEDGER: ledger.file,
    KASSA_MAX_EVENT_LOOP_DELAY: '0',
    // Every simulated cardholder pays from 127.0.0.1, most with the same test card: the card-testing velocity limits
    // (tested in test/hosted/card-testing.test.ts) would stop the journeys, which test something else.
    KASSA_CARD_TRIES_PER_CARD: '10000',
    KASSA_CARD_TRIES_PER_IP: '100000',
    LOG_LEVEL: 'warn',
    ...env,
  });
  const start = async (i: number): Promise<KassaNode> => {
    const process = await startServerProcess(envOf(i));
    await process.waitFor(/Kassa listens on/, 60_000);
    return { index: i, port: ports[i] as number, url: `https://127.0.0.1:${ports[i]}`, process };
  };
  const nodes = await Promise.all(Array.from({ length: count }, (_, i) => start(i)));

  const urlOn = (i: number, pathOrUrl: string) => {
    const target = nodes[i] as KassaNode;
    if (!/^https?:/.test(pathOrUrl)) return `${target.url}${pathOrUrl}`;
    const url = new URL(pathOrUrl);
    return `${target.url}${url.pathname}${url.search}`;
  };

  return {
    database,
    nodes,
    receiver,
    ledger,
    merchant: {
      merchantId: created.merchant.merchantId,
      apiKey: created.apiKey,
      keyId: created.keyId,
      webhookSecret: created.merchant.webhookSecret,
    },
    merchants,
    urlOn,
    async call(i, method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.auth && 'token' in options.auth) headers.authorization = `Bearer ${options.auth.token}`;
      else if (options.auth) {
        headers.authorization = `Basic ${Buffer.from(`${options.auth.merchantId}:${options.auth.apiKey}`).toString('base64')}`;
      }
      let body: string | undefined;
      if (options.json !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = JSON.stringify(options.json);
      } else if (options.form) {
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
        body = new URLSearchParams(options.form).toString();
      }
      const res = await fetch(urlOn(i, path), { method, headers, body, dispatcher });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers as unknown as Headers, body: parsed, text };
    },
    async restart(i) {
      nodes[i] = await start(i);
    },
    async kill(i) {
      const node = nodes[i] as KassaNode;
      const pid = node.process.child.pid;
      if (pid !== undefined) for (const child of CHILD_PIDS(pid)) process.kill(child, 'SIGKILL');
      await node.process.stop('SIGKILL');
    },
    settlement: () => ledger.records(),
    async close() {
      await Promise.all(nodes.map((n) => n.process.stop('SIGKILL')));
      await dispatcher.close();
      await receiver.close();
      await database.drop();
    },
  };
}
