import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, internalPorts, loadConfig } from '../../src/config/config.js';

describe('loadConfig', () => {
  it('defaults: port 8443, SQLite in .kassa, https://localhost:8443, TLS on', () => {
    const c = loadConfig({}, '/srv/kassa');
    expect(c).toMatchObject({
      host: 'localhost',
      port: 8443,
      dataDir: '/srv/kassa/.kassa',
      database: { dialect: 'sqlite', file: '/srv/kassa/.kassa/kassa.db' },
      publicUrl: 'https://localhost:8443',
      tls: { mode: 'on' },
      tokenTtlSeconds: 3600,
      logLevel: 'info',
    });
    expect(c.binFile).toBe(resolve('data/bins.csv'));
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('postgres:// selects PostgreSQL and sqlite:<file> a file relative to the working directory', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db/kassa' }).database).toEqual({
      dialect: 'postgres',
      url: 'postgres://u:p@db/kassa',
      preparedStatements: true,
      listen: false,
      queryTimeoutMs: 30_000,
    });
    expect(loadConfig({ DATABASE_URL: 'sqlite:data/k.db' }, '/w').database).toEqual({
      dialect: 'sqlite',
      file: '/w/data/k.db',
    });
  });

  it.each([
    ['KASSA_PORT', 'abc'],
    ['KASSA_PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['KASSA_PUBLIC_URL', 'http://insecure.example'],
    ['KASSA_TLS', 'off'],
    ['KASSA_TOKEN_SECRET', 'short'],
    ['KASSA_ADMIN_TOKEN', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['KASSA_TOKEN_TTL', '5'],
  ])('a bad %s (%s) stops start-up with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      expect((error as ConfigError).message).toContain(name);
    }
  });

  // An operator's typo must not start Kassa on another port or timeout than written: "8443.5" was read as 8443,
  // "0x1F90" as 8080, "true" as 1.
  it.each([
    ['KASSA_PORT', '8443.5', 'must be a whole number'],
    ['KASSA_PORT', '0x1F90', 'must be a whole number'],
    ['KASSA_PORT', '1e3', 'must be a whole number'],
    ['KASSA_TOKEN_TTL', 'true', 'must be a whole number'],
    ['KASSA_WORKERS', 'two', 'must be a whole number or one of: auto'],
    ['KASSA_TLS', 'off', 'must be one of: on, proxy'],
    ['LOG_LEVEL', 'verbose', 'must be one of: fatal, error, warn, info, debug, trace, silent'],
  ])('%s=%s is refused once, saying what it takes', (name, value, expected) => {
    let message = '';
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      message = (error as ConfigError).message;
    }
    expect(message.split('\n').filter((line) => line.includes(`${name}:`))).toEqual([
      `  - ${name}: ${expected} (got ${JSON.stringify(value)})`,
    ]);
  });

  it('whole numbers written with surrounding spaces are taken; their range is still checked', () => {
    expect(loadConfig({ KASSA_PORT: ' 8080\n' }).port).toBe(8080);
    expect(() => loadConfig({ KASSA_TOKEN_TTL: '30' })).toThrow(/KASSA_TOKEN_TTL: must be >= 60 \(got 30\)/);
  });

  it('a certificate without its key is refused', () => {
    expect(() => loadConfig({ KASSA_TLS_CERT: '/c.pem' })).toThrow(/KASSA_TLS_CERT and KASSA_TLS_KEY/);
  });

  it('proxy mode needs no certificate and refuses one', () => {
    expect(loadConfig({ KASSA_TLS: 'proxy' }).tls).toEqual({ mode: 'proxy' });
    expect(() => loadConfig({ KASSA_TLS: 'proxy', KASSA_TLS_CERT: '/c', KASSA_TLS_KEY: '/k' })).toThrow(/proxy/);
  });

  // Security: printing the config never shows a secret.
  it('describeConfig masks secrets and database passwords', () => {
    const text = JSON.stringify(
      describeConfig(
        loadConfig({
          KASSA_TOKEN_SECRET: 'x'.repeat(40),
          KASSA_ADMIN_TOKEN: 'y'.repeat(40),
          DATABASE_URL: 'postgres://kassa:hunter2@db/kassa',
        }),
      ),
    );
    expect(text).not.toContain('x'.repeat(40));
    expect(text).not.toContain('y'.repeat(40));
    expect(text).not.toContain('hunter2');
    expect(text).toContain('kassa:***@db');
  });
});

describe('KASSA_WORKERS', () => {
  it('defaults to one worker; auto means one per core', () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ KASSA_WORKERS: 'auto', DATABASE_URL: 'postgres://kassa@db/kassa' }).workers).toBe(
      availableParallelism(),
    );
    expect(loadConfig({ KASSA_WORKERS: '4', DATABASE_URL: 'postgres://kassa@db/kassa' }).workers).toBe(4);
  });

  it.each(['2', 'auto'].filter((w) => w !== 'auto' || availableParallelism() > 1))(
    'refuses %s workers on SQLite, naming its single writer',
    (workers) => {
      expect(() => loadConfig({ KASSA_WORKERS: workers })).toThrow(/KASSA_WORKERS: \d+ workers need PostgreSQL/);
      expect(() => loadConfig({ KASSA_WORKERS: workers, DATABASE_URL: 'sqlite:/tmp/k.db' })).toThrow(
        /SQLite allows one writer/,
      );
    },
  );

  it('PostgreSQL statements are prepared unless KASSA_POSTGRES_PREPARED=off', () => {
    const url = 'postgres://kassa@db/kassa';
    expect(loadConfig({ DATABASE_URL: url }).database).toEqual({
      dialect: 'postgres',
      url,
      preparedStatements: true,
      listen: false,
      queryTimeoutMs: 30_000,
    });
    expect(loadConfig({ DATABASE_URL: url, KASSA_POSTGRES_PREPARED: 'off' }).database).toMatchObject({
      preparedStatements: false,
    });
    expect(() => loadConfig({ DATABASE_URL: url, KASSA_POSTGRES_PREPARED: 'no' })).toThrow(/KASSA_POSTGRES_PREPARED/);
  });

  it('PostgreSQL nodes LISTEN for credential changes only with KASSA_POSTGRES_LISTEN=on', () => {
    const url = 'postgres://kassa@db/kassa';
    expect(loadConfig({ DATABASE_URL: url }).database).toMatchObject({ listen: false });
    expect(loadConfig({ DATABASE_URL: url, KASSA_POSTGRES_LISTEN: 'on' }).database).toMatchObject({ listen: true });
    expect(() => loadConfig({ DATABASE_URL: url, KASSA_POSTGRES_LISTEN: 'yes' })).toThrow(/KASSA_POSTGRES_LISTEN/);
  });

  it('PostgreSQL queries have a deadline of KASSA_POSTGRES_QUERY_TIMEOUT seconds (30; 0 = none)', () => {
    const url = 'postgres://kassa@db/kassa';
    expect(loadConfig({ DATABASE_URL: url, KASSA_POSTGRES_QUERY_TIMEOUT: '5' }).database).toMatchObject({
      queryTimeoutMs: 5_000,
    });
    expect(loadConfig({ DATABASE_URL: url, KASSA_POSTGRES_QUERY_TIMEOUT: '0' }).database).toMatchObject({
      queryTimeoutMs: 0,
    });
    expect(() => loadConfig({ DATABASE_URL: url, KASSA_POSTGRES_QUERY_TIMEOUT: '-1' })).toThrow(
      /KASSA_POSTGRES_QUERY_TIMEOUT/,
    );
  });

  it('heap growth: 50 % by default, 0 for V8’s own factor, nothing past 300', () => {
    expect(loadConfig({}).heapGrowingPercent).toBe(50);
    expect(loadConfig({ KASSA_HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(() => loadConfig({ KASSA_HEAP_GROWING_PERCENT: '301' })).toThrow(/KASSA_HEAP_GROWING_PERCENT/);
  });

  it.each(['0', '-1', 'many'])('refuses KASSA_WORKERS=%s', (workers) => {
    expect(() => loadConfig({ KASSA_WORKERS: workers, DATABASE_URL: 'postgres://kassa@db/kassa' })).toThrow(
      /KASSA_WORKERS/,
    );
  });
});

describe('KASSA_REDIS_URL', () => {
  it('takes a redis:// or rediss:// URL and masks its password in the printed config', () => {
    const config = loadConfig({ KASSA_REDIS_URL: 'rediss://kassa:s3cret@redis.internal:6380/0' });
    expect(config.redisUrl).toBe('rediss://kassa:s3cret@redis.internal:6380/0');
    expect(describeConfig(config).redisUrl).toBe('rediss://kassa:***@redis.internal:6380/0');
  });

  it('refuses a URL that is not Redis', () => {
    expect(() => loadConfig({ KASSA_REDIS_URL: 'http://redis:6379' })).toThrow(/KASSA_REDIS_URL/);
  });
});

describe('edge settings (issue 9)', () => {
  it('defaults: no trusted proxy, 30 s request, 10 s headers, 72 s keep-alive, 10,000 connections, demo on', () => {
    expect(loadConfig({})).toMatchObject({
      trustedProxies: 0,
      timeouts: { requestMs: 30_000, headersMs: 10_000, keepAliveMs: 72_000 },
      maxConnections: 10_000,
      demo: true,
    });
  });

  it('reads KASSA_TRUSTED_PROXIES (proxy mode), the timeouts in seconds, KASSA_MAX_CONNECTIONS and KASSA_DEMO', () => {
    expect(
      loadConfig({
        KASSA_TLS: 'proxy',
        KASSA_TRUSTED_PROXIES: '2',
        KASSA_REQUEST_TIMEOUT: '60',
        KASSA_HEADERS_TIMEOUT: '5',
        KASSA_KEEP_ALIVE_TIMEOUT: '3',
        KASSA_MAX_CONNECTIONS: '0',
        KASSA_DEMO: 'off',
      }),
    ).toMatchObject({
      trustedProxies: 2,
      timeouts: { requestMs: 60_000, headersMs: 5_000, keepAliveMs: 3_000 },
      maxConnections: 0,
      demo: false,
    });
  });

  it.each([
    [{ KASSA_TRUSTED_PROXIES: '1' }, 'KASSA_TRUSTED_PROXIES'],
    [{ KASSA_TLS: 'proxy', KASSA_TRUSTED_PROXIES: '-1' }, 'KASSA_TRUSTED_PROXIES'],
    [{ KASSA_REQUEST_TIMEOUT: '0' }, 'KASSA_REQUEST_TIMEOUT'],
    [{ KASSA_REQUEST_TIMEOUT: '5', KASSA_HEADERS_TIMEOUT: '10' }, 'KASSA_HEADERS_TIMEOUT'],
    [{ KASSA_DEMO: 'maybe' }, 'KASSA_DEMO'],
  ])('%o is refused naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('internalPorts: the database’s and Redis’s ports, defaults filled in', () => {
    expect(internalPorts(loadConfig({ DATABASE_URL: 'postgres://u:p@db/kassa' }))).toEqual([5432]);
    expect(
      internalPorts(loadConfig({ DATABASE_URL: 'postgres://db:6543/k', KASSA_REDIS_URL: 'redis://cache:7000' })),
    ).toEqual([6543, 7000]);
    expect(internalPorts(loadConfig({ KASSA_REDIS_URL: 'redis://cache' }))).toEqual([6379]);
    expect(internalPorts(loadConfig({}))).toEqual([]);
  });
});
