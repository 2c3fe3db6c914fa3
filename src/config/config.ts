import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';

/** The directory of Kassa's package.json: src/config/ runs from the sources, dist/config/ or a deeper build tree compiled. */
const PACKAGE_ROOT = packageRoot(fileURLToPath(new URL('.', import.meta.url)));

function packageRoot(from: string): string {
  for (let dir = resolve(from); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  return resolve(from, '../..');
}

/**
 * Every setting of Kassa, read from the environment (DESIGN.md §3). One schema, defaults beside each entry.
 * Names are the environment variables themselves so that an error names what the operator must fix.
 */
export const ConfigSchema = Type.Object({
  KASSA_HOST: Type.String({ minLength: 1, default: 'localhost', description: 'Interface to listen on' }),
  KASSA_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8443, description: 'TCP port' }),
  KASSA_DATA_DIR: Type.String({ minLength: 1, default: '.kassa', description: 'SQLite file, generated certificate' }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^(postgres(ql)?://.+|sqlite:.+)$',
      description: 'postgres://… selects PostgreSQL; sqlite:<file> or unset selects SQLite in the data dir',
    }),
  ),
  KASSA_PUBLIC_URL: Type.Optional(
    Type.String({ pattern: '^https://[^/]+(/.*)?$', description: 'https URL merchants and browsers reach' }),
  ),
  KASSA_TLS: Type.Union([Type.Literal('on'), Type.Literal('proxy')], {
    default: 'on',
    description: 'on: Kassa terminates TLS; proxy: a TLS-terminating proxy in front sets X-Forwarded-Proto',
  }),
  KASSA_TRUSTED_PROXIES: Type.Integer({
    minimum: 0,
    maximum: 10,
    default: 0,
    description:
      'KASSA_TLS=proxy: number of proxies in front of Kassa whose X-Forwarded-For entries are trusted (right-most first); 0 = the connecting peer is the client',
  }),
  KASSA_TLS_CERT: Type.Optional(Type.String({ minLength: 1, description: 'PEM certificate chain file' })),
  KASSA_TLS_KEY: Type.Optional(Type.String({ minLength: 1, description: 'PEM private key file' })),
  KASSA_TOKEN_SECRET: Type.Optional(
    Type.String({ minLength: 32, description: 'HMAC key of access tokens (≥ 32 chars); generated if unset' }),
  ),
  KASSA_TOKEN_TTL: Type.Integer({ minimum: 60, maximum: 86_400, default: 3600, description: 'seconds' }),
  KASSA_ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 32, description: 'Bearer token of /admin/v1' })),
  KASSA_DATA_KEY: Type.Optional(
    Type.String({ minLength: 32, description: 'Key of card fingerprints (≥ 32 chars); generated if unset' }),
  ),
  KASSA_BIN_FILE: Type.String({ minLength: 1, default: join(PACKAGE_ROOT, 'data', 'bins.csv') }),
  KASSA_MAX_EVENT_LOOP_DELAY: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 1000,
    description: 'ms of event-loop delay above which requests get 503 (load shedding); 0 turns it off',
  }),
  KASSA_HEAP_GROWING_PERCENT: Type.Integer({
    minimum: 0,
    maximum: 300,
    default: 50,
    description: "V8 grows the heap to this % above the live data after a full GC; 0 leaves V8's own factor (up to 4×)",
  }),
  KASSA_WORKERS: Type.Union([Type.Literal('auto'), Type.Integer({ minimum: 1, maximum: 256 })], {
    default: 1,
    description: 'worker processes sharing the port (node:cluster); auto = number of cores; > 1 needs PostgreSQL',
  }),
  KASSA_NOTIFICATION_LEASE: Type.Optional(
    Type.Integer({
      minimum: 1000,
      maximum: 3_600_000,
      description:
        'ms a node holds a claimed notification; a crashed node’s claims are delivered by others after it (default 12 000)',
    }),
  ),
  KASSA_NOTIFICATION_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 30,
    description: 'days a finished notification (delivered, given up, or without a target) is kept, then pruned',
  }),
  KASSA_CARD_TRIES_PER_CARD: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 10,
    description: 'hosted card tries one card may make in an hour, across sessions and nodes (card testing)',
  }),
  KASSA_CARD_TRIES_PER_IP: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 30,
    description: 'hosted card tries one client address may make in an hour, across sessions and nodes (card testing)',
  }),
  // Generous: the Axepta PHP library and its Magento 2 plugin fetch a new token for every call and cache none
  // (OAuth2Api.php: "TODO: support accessToken expiration?"), so a shop taking 100 orders a minute asks for 200 or more
  // from its one server address, and shops behind a shared hosting egress share one. Guessing is limited apart:
  // failed client authentications per client_id and address (AuthFailureLimit), and API keys carry 256 random bits.
  KASSA_TOKEN_REQUESTS_PER_IP: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 1_200,
    description:
      'token requests (POST /authorization/oauth/token) one client address may make in a minute, across nodes',
  }),
  KASSA_ACQUIRER_SIMULATOR_LEDGER: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'file the acquirer simulator appends its settlement records to (JSON lines); shared by nodes',
    }),
  ),
  KASSA_REQUEST_TIMEOUT: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 30,
    description: 'seconds a client has to send a whole request (headers and body); slower ones are cut with 408',
  }),
  KASSA_HEADERS_TIMEOUT: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 10,
    description: 'seconds a client has to send the request headers (at most KASSA_REQUEST_TIMEOUT)',
  }),
  KASSA_KEEP_ALIVE_TIMEOUT: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 72,
    description:
      "seconds an idle keep-alive connection stays open (Fastify's default: above the 60 s idle timeout of common load balancers)",
  }),
  KASSA_MAX_CONNECTIONS: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 10_000,
    description: 'open connections a process accepts at most (further ones are closed at once); 0 = no cap',
  }),
  KASSA_POSTGRES_PREPARED: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description:
      'on: statements run as named prepared statements (planned once per connection); off: unnamed, for a pooler in transaction mode that cannot keep them',
  }),
  KASSA_POSTGRES_LISTEN: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'off',
    description:
      'off: each request reads the credentials epoch, so a revocation holds on every node from the next request; on: each node LISTENs for credential changes and authentication failures and holds the epoch in memory (no read per request; other nodes learn of a revocation when its notification arrives)',
  }),
  KASSA_POSTGRES_QUERY_TIMEOUT: Type.Integer({
    minimum: 0,
    maximum: 3600,
    default: 30,
    description:
      'seconds a PostgreSQL query may go unanswered before it fails (503) and its connection is replaced: a server gone silent (a failover, a frozen VM) then costs seconds, not the ~15 min TCP takes to give up; 0 = no deadline; migrations have none',
  }),
  KASSA_DEMO: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description: 'on: the first start with an empty database creates the sandbox merchant "demo"; off: it does not',
  }),
  KASSA_REDIS_URL: Type.Optional(
    Type.String({
      pattern: '^rediss?://.+',
      description:
        'Redis for the rate limits shared by every node; unset: the database (PostgreSQL) or memory (SQLite)',
    }),
  ),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
});
type RawConfig = Static<typeof ConfigSchema>;

export type DatabaseConfig =
  | { dialect: 'sqlite'; file: string }
  /**
   * preparedStatements: KASSA_POSTGRES_PREPARED (storage/postgres-prepared-statements.ts); listen:
   * KASSA_POSTGRES_LISTEN (storage/postgres-auth-listener.ts); queryTimeoutMs: KASSA_POSTGRES_QUERY_TIMEOUT in ms,
   * 0 = none (storage/postgres-query-deadline.ts).
   */
  | { dialect: 'postgres'; url: string; preparedStatements: boolean; listen: boolean; queryTimeoutMs: number };
export type TlsConfig = { mode: 'on'; certFile?: string; keyFile?: string } | { mode: 'proxy' };

/** Kassa's settings after validation. Frozen; built only by `loadConfig`. */
export interface Config {
  host: string;
  port: number;
  /** Absolute path. */
  dataDir: string;
  database: DatabaseConfig;
  /** Without a trailing slash. */
  publicUrl: string;
  tls: TlsConfig;
  /**
   * Proxy hops in front of Kassa whose `X-Forwarded-For` entries are trusted (KASSA_TLS=proxy only; 0 otherwise):
   * the client address is the right-most entry not added by one of them, never a client-supplied left-most one.
   */
  trustedProxies: number;
  /** Server timeouts in milliseconds (node:http `requestTimeout`, `headersTimeout`, `keepAliveTimeout`). */
  timeouts: { requestMs: number; headersMs: number; keepAliveMs: number };
  /** Connections one process accepts at once (node:net `maxConnections`); 0 = no cap. */
  maxConnections: number;
  /** Whether the first start creates the sandbox merchant `demo` (KASSA_DEMO). */
  demo: boolean;
  tokenSecret?: string;
  /** Access token lifetime in seconds (spec §4.1 expires_in). */
  tokenTtlSeconds: number;
  adminToken?: string;
  dataKey?: string;
  binFile: string;
  logLevel: string;
  /** Event-loop delay (ms) above which Kassa sheds load with 503; 0 = off. */
  maxEventLoopDelayMs: number;
  /** % by which V8 grows the heap over the live data after a full GC (server/heap.ts); 0 = V8's own factor. */
  heapGrowingPercent: number;
  /** Worker processes of `kassa serve` on one port (1: no cluster). */
  workers: number;
  /** Claim lease of notification delivery in ms; undefined: the dispatcher's default. */
  notificationLeaseMs?: number;
  /** Redis of the shared rate limits (redis:// or rediss://); undefined: database or memory. */
  redisUrl?: string;
  /** Days finished notifications (and their attempts) are kept before the retention job prunes them. */
  notificationRetentionDays: number;
  /** Settlement file of the acquirer simulator (absolute); undefined: records kept in memory only. */
  acquirerSimulatorLedger?: string;
  /** Card-testing velocity limits: hosted card tries per card and per client address, each in one hour. */
  cardTriesPerHour: { perCard: number; perIp: number };
  /** Token endpoint requests one client address may make in a minute (all of them, failed or not). */
  tokenRequestsPerMinute: number;
}

/** Thrown when a setting is invalid; the message names each variable. Start-up stops on it. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * What is wrong with `text` for a setting that takes a whole number (decimal digits only) or one of listed words
 * (TypeBox Literal members of a Union), e.g. "must be a whole number or one of: auto"; undefined when the text has
 * that form (its range is checked later) or the setting takes any text.
 */
function textProblem(schema: unknown, text: string): string | undefined {
  const members: { type?: unknown; const?: unknown }[] = (schema as { anyOf?: { type?: unknown; const?: unknown }[] })
    .anyOf ?? [schema as { type?: unknown }];
  const words = members.flatMap((m) => (typeof m.const === 'string' ? [m.const] : []));
  const number = members.some((m) => m.type === 'integer');
  if (!number && words.length === 0) return undefined;
  const trimmed = text.trim();
  if ((number && /^[0-9]+$/.test(trimmed)) || words.includes(trimmed)) return undefined;
  const accepted = [number ? 'a whole number' : '', words.length > 0 ? `one of: ${words.join(', ')}` : ''];
  return `must be ${accepted.filter((a) => a !== '').join(' or ')}`;
}

/**
 * Reads and validates the settings from `env`.
 * @throws ConfigError naming every bad variable.
 */
export function loadConfig(env: Record<string, string | undefined>, cwd = process.cwd()): Config {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  // The text of a whole-number or one-of setting is judged as written, before TypeBox converts it (which reads
  // "8443.5" as 8443, "0x1F90" as 8080 and "true" as 1), and named once with what it accepts.
  const problems: string[] = [];
  for (const [key, value] of Object.entries(picked)) {
    const expected = textProblem(ConfigSchema.properties[key as keyof typeof ConfigSchema.properties], String(value));
    if (expected !== undefined) problems.push(`${key}: ${expected} (got ${JSON.stringify(value)})`);
  }
  const named = new Set(problems.map((p) => p.slice(0, p.indexOf(':'))));
  const raw = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, picked)) as RawConfig;
  for (const e of Value.Errors(ConfigSchema, raw)) {
    const name =
      e.instancePath.replace(/^\//, '') || String((e.params as { missingProperty?: string }).missingProperty);
    if (named.has(name)) continue; // one problem a variable: the first TypeBox names
    named.add(name);
    problems.push(`${name}: ${e.message} (got ${JSON.stringify(picked[name] ?? null)})`);
  }
  if ((raw.KASSA_TLS_CERT === undefined) !== (raw.KASSA_TLS_KEY === undefined)) {
    problems.push('KASSA_TLS_CERT and KASSA_TLS_KEY: set both or neither');
  }
  if (raw.KASSA_TRUSTED_PROXIES > 0 && raw.KASSA_TLS !== 'proxy') {
    problems.push('KASSA_TRUSTED_PROXIES: only meaningful with KASSA_TLS=proxy (Kassa terminating TLS has no proxy)');
  }
  if (raw.KASSA_HEADERS_TIMEOUT > raw.KASSA_REQUEST_TIMEOUT) {
    problems.push('KASSA_HEADERS_TIMEOUT: must not exceed KASSA_REQUEST_TIMEOUT');
  }
  if (raw.KASSA_TLS === 'proxy' && raw.KASSA_TLS_CERT !== undefined) {
    problems.push('KASSA_TLS: proxy mode terminates TLS in the proxy; unset KASSA_TLS_CERT/KASSA_TLS_KEY');
  }
  const workers = raw.KASSA_WORKERS === 'auto' ? availableParallelism() : raw.KASSA_WORKERS;
  const sqlite = raw.DATABASE_URL === undefined || raw.DATABASE_URL.startsWith('sqlite:');
  if (workers > 1 && sqlite) {
    problems.push(
      `KASSA_WORKERS: ${workers} workers need PostgreSQL (DATABASE_URL=postgres://…); SQLite allows one writer at a time, so more processes on one SQLite file would only queue for its lock and fail with SQLITE_BUSY`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const dataDir = isAbsolute(raw.KASSA_DATA_DIR) ? raw.KASSA_DATA_DIR : resolve(cwd, raw.KASSA_DATA_DIR);
  const url = raw.DATABASE_URL;
  let database: DatabaseConfig;
  if (url?.startsWith('postgres')) {
    database = {
      dialect: 'postgres',
      url,
      preparedStatements: raw.KASSA_POSTGRES_PREPARED === 'on',
      listen: raw.KASSA_POSTGRES_LISTEN === 'on',
      queryTimeoutMs: raw.KASSA_POSTGRES_QUERY_TIMEOUT * 1000,
    };
  } else if (url?.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    database = { dialect: 'sqlite', file: file === ':memory:' || isAbsolute(file) ? file : resolve(cwd, file) };
  } else database = { dialect: 'sqlite', file: join(dataDir, 'kassa.db') };

  const publicHost = raw.KASSA_HOST === '0.0.0.0' || raw.KASSA_HOST === '::' ? 'localhost' : raw.KASSA_HOST;
  const config: Config = {
    host: raw.KASSA_HOST,
    port: raw.KASSA_PORT,
    dataDir,
    database,
    publicUrl: (raw.KASSA_PUBLIC_URL ?? `https://${publicHost}:${raw.KASSA_PORT}`).replace(/\/+$/, ''),
    tls:
      raw.KASSA_TLS === 'proxy'
        ? { mode: 'proxy' }
        : { mode: 'on', certFile: raw.KASSA_TLS_CERT, keyFile: raw.KASSA_TLS_KEY },
    trustedProxies: raw.KASSA_TRUSTED_PROXIES,
    timeouts: {
      requestMs: raw.KASSA_REQUEST_TIMEOUT * 1000,
      headersMs: raw.KASSA_HEADERS_TIMEOUT * 1000,
      keepAliveMs: raw.KASSA_KEEP_ALIVE_TIMEOUT * 1000,
    },
    maxConnections: raw.KASSA_MAX_CONNECTIONS,
    demo: raw.KASSA_DEMO === 'on',
    tokenSecret: raw.KASSA_TOKEN_SECRET,
    tokenTtlSeconds: raw.KASSA_TOKEN_TTL,
    adminToken: raw.KASSA_ADMIN_TOKEN,
    dataKey: raw.KASSA_DATA_KEY,
    binFile: isAbsolute(raw.KASSA_BIN_FILE) ? raw.KASSA_BIN_FILE : resolve(cwd, raw.KASSA_BIN_FILE),
    logLevel: raw.LOG_LEVEL,
    maxEventLoopDelayMs: raw.KASSA_MAX_EVENT_LOOP_DELAY,
    heapGrowingPercent: raw.KASSA_HEAP_GROWING_PERCENT,
    workers,
    notificationLeaseMs: raw.KASSA_NOTIFICATION_LEASE,
    redisUrl: raw.KASSA_REDIS_URL,
    notificationRetentionDays: raw.KASSA_NOTIFICATION_RETENTION_DAYS,
    cardTriesPerHour: { perCard: raw.KASSA_CARD_TRIES_PER_CARD, perIp: raw.KASSA_CARD_TRIES_PER_IP },
    tokenRequestsPerMinute: raw.KASSA_TOKEN_REQUESTS_PER_IP,
    acquirerSimulatorLedger:
      raw.KASSA_ACQUIRER_SIMULATOR_LEDGER === undefined
        ? undefined
        : isAbsolute(raw.KASSA_ACQUIRER_SIMULATOR_LEDGER)
          ? raw.KASSA_ACQUIRER_SIMULATOR_LEDGER
          : resolve(cwd, raw.KASSA_ACQUIRER_SIMULATOR_LEDGER),
  };
  return Object.freeze(config);
}

/**
 * The TCP ports of Kassa's own back ends, which no merchant notification may reach, sandbox or not (SSRF guard,
 * DESIGN.md §5): PostgreSQL's (DATABASE_URL, default 5432) and Redis's (KASSA_REDIS_URL, default 6379).
 */
export function internalPorts(config: Pick<Config, 'database' | 'redisUrl'>): number[] {
  const ports: number[] = [];
  const portOf = (url: string, fallback: number): number => {
    try {
      const port = new URL(url).port;
      return port ? Number(port) : fallback;
    } catch {
      return fallback;
    }
  };
  if (config.database.dialect === 'postgres') ports.push(portOf(config.database.url, 5432));
  if (config.redisUrl) ports.push(portOf(config.redisUrl, 6379));
  return ports;
}

/** `url` with the password of its user info masked (`postgres://kassa:***@db/kassa`), for messages and logs. */
export function maskUrlPassword(url: string): string {
  return url.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:***@');
}

/**
 * Where the database is, for an error message: `DATABASE_URL=postgres://kassa:***@db:5432/kassa` (password masked)
 * or the SQLite file and the setting that chose it.
 */
export function describeDatabaseLocation(config: Pick<Config, 'database'>): string {
  return config.database.dialect === 'postgres'
    ? `DATABASE_URL=${maskUrlPassword(config.database.url)}`
    : `the SQLite file ${config.database.file} (DATABASE_URL, or KASSA_DATA_DIR when it is unset)`;
}

const SECRET_KEYS = new Set(['tokenSecret', 'adminToken', 'dataKey']);

/** The config as text safe to print or log: secrets and database passwords masked. */
export function describeConfig(config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (SECRET_KEYS.has(k)) out[k] = v === undefined ? undefined : '***';
    else if (k === 'database' && (v as DatabaseConfig).dialect === 'postgres') {
      out[k] = { dialect: 'postgres', url: maskUrlPassword((v as { url: string }).url) };
    } else if (k === 'redisUrl' && typeof v === 'string') {
      out[k] = maskUrlPassword(v);
    } else out[k] = v;
  }
  return out;
}
