import { availableParallelism } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';

const PACKAGE_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

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
  KASSA_ACQUIRER_SIMULATOR_LEDGER: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'file the acquirer simulator appends its settlement records to (JSON lines); shared by nodes',
    }),
  ),
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

export type DatabaseConfig = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };
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
  tokenSecret?: string;
  /** Access token lifetime in seconds (spec §4.1 expires_in). */
  tokenTtlSeconds: number;
  adminToken?: string;
  dataKey?: string;
  binFile: string;
  logLevel: string;
  /** Event-loop delay (ms) above which Kassa sheds load with 503; 0 = off. */
  maxEventLoopDelayMs: number;
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
}

/** Thrown when a setting is invalid; the message names each variable. Start-up stops on it. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
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
  const raw = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, picked)) as RawConfig;
  const problems = [...Value.Errors(ConfigSchema, raw)].map((e) => {
    const name =
      e.instancePath.replace(/^\//, '') || String((e.params as { missingProperty?: string }).missingProperty);
    return `${name}: ${e.message} (got ${JSON.stringify(picked[name] ?? null)})`;
  });
  if ((raw.KASSA_TLS_CERT === undefined) !== (raw.KASSA_TLS_KEY === undefined)) {
    problems.push('KASSA_TLS_CERT and KASSA_TLS_KEY: set both or neither');
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
  if (url?.startsWith('postgres')) database = { dialect: 'postgres', url };
  else if (url?.startsWith('sqlite:')) {
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
    tokenSecret: raw.KASSA_TOKEN_SECRET,
    tokenTtlSeconds: raw.KASSA_TOKEN_TTL,
    adminToken: raw.KASSA_ADMIN_TOKEN,
    dataKey: raw.KASSA_DATA_KEY,
    binFile: isAbsolute(raw.KASSA_BIN_FILE) ? raw.KASSA_BIN_FILE : resolve(cwd, raw.KASSA_BIN_FILE),
    logLevel: raw.LOG_LEVEL,
    maxEventLoopDelayMs: raw.KASSA_MAX_EVENT_LOOP_DELAY,
    workers,
    notificationLeaseMs: raw.KASSA_NOTIFICATION_LEASE,
    redisUrl: raw.KASSA_REDIS_URL,
    notificationRetentionDays: raw.KASSA_NOTIFICATION_RETENTION_DAYS,
    cardTriesPerHour: { perCard: raw.KASSA_CARD_TRIES_PER_CARD, perIp: raw.KASSA_CARD_TRIES_PER_IP },
    acquirerSimulatorLedger:
      raw.KASSA_ACQUIRER_SIMULATOR_LEDGER === undefined
        ? undefined
        : isAbsolute(raw.KASSA_ACQUIRER_SIMULATOR_LEDGER)
          ? raw.KASSA_ACQUIRER_SIMULATOR_LEDGER
          : resolve(cwd, raw.KASSA_ACQUIRER_SIMULATOR_LEDGER),
  };
  return Object.freeze(config);
}

const SECRET_KEYS = new Set(['tokenSecret', 'adminToken', 'dataKey']);

/** The config as text safe to print or log: secrets and database passwords masked. */
export function describeConfig(config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (SECRET_KEYS.has(k)) out[k] = v === undefined ? undefined : '***';
    else if (k === 'database' && (v as DatabaseConfig).dialect === 'postgres') {
      out[k] = { dialect: 'postgres', url: (v as { url: string }).url.replace(/:\/\/([^:@/]+):[^@/]*@/, '://$1:***@') };
    } else if (k === 'redisUrl' && typeof v === 'string') {
      out[k] = v.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:***@');
    } else out[k] = v;
  }
  return out;
}
