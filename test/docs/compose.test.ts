import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigSchema, loadConfig } from '../../src/config/config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface ComposeService {
  build?: string;
  image?: string;
  environment?: Record<string, string>;
  configs?: { source: string }[];
}

/** The example .env (KEY=value lines), as `docker compose` reads .env. */
function exampleEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(`${root}/.env.example`, 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) env[m[1] as string] = m[2] as string;
  }
  return env;
}

/** Compose's variable interpolation: ${VAR}, ${VAR:-default}, ${VAR:?error} (the last fails when VAR is unset). */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, arg?: string) => {
    const set = env[name];
    if (set !== undefined && set !== '') return set;
    if (op === '-') return arg ?? '';
    if (op === '?') throw new Error(`${name}: ${arg}`);
    return '';
  });
}

describe('compose.yaml (docs/operations.md)', () => {
  const compose = parse(readFileSync(`${root}/compose.yaml`, 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
    configs: Record<string, { content: string }>;
  };
  const env = exampleEnv();
  const kassaNodes = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);

  it('runs PostgreSQL, Redis, two Kassa nodes and a TLS proxy', () => {
    expect(kassaNodes.map(([name]) => name)).toEqual(['kassa-1', 'kassa-2']);
    expect(compose.services.postgres?.image).toMatch(/^postgres:/);
    expect(compose.services.redis?.image).toMatch(/^redis:/);
    const caddyfile = compose.configs[compose.services.proxy?.configs?.[0]?.source ?? '']?.content ?? '';
    expect(caddyfile).toContain('reverse_proxy kassa-1:8080 kassa-2:8080');
    expect(caddyfile).toContain('health_uri /readyz');
  });

  it.each(kassaNodes.map(([name]) => name))(
    '%s: every variable is a Kassa setting and the real config loader accepts them',
    (name) => {
      const raw = compose.services[name]?.environment ?? {};
      const unknown = Object.keys(raw).filter((key) => !(key in ConfigSchema.properties));
      expect(unknown).toEqual([]);
      const resolved = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, interpolate(String(v), env)]));
      const config = loadConfig(resolved);
      expect(config.database.dialect).toBe('postgres');
      expect(config.tls.mode).toBe('proxy');
      expect(config.redisUrl).toBe('redis://redis:6379');
      expect(config.tokenSecret).toBeDefined();
      expect(config.dataKey).toBeDefined();
      expect(config.adminToken).toBeDefined();
      expect(config.workers).toBeGreaterThanOrEqual(1);
      expect(config.port).toBe(8080);
    },
  );

  // docs/operations.md, "Connections": nodes × KASSA_WORKERS × 10 pooled connections (11 with LISTEN), plus room for
  // `kassa` commands, backups and monitoring. `auto` would scale with the host's cores past max_connections.
  it("the nodes' connection pools fit PostgreSQL's max_connections with room to spare, on any host", () => {
    const command = (compose.services.postgres as { command?: string[] }).command ?? [];
    const maxConnections = Number(
      command.find((arg) => arg.startsWith('max_connections='))?.slice('max_connections='.length) ?? 100,
    );
    let pooled = 0;
    for (const [, node] of kassaNodes) {
      const workers = node.environment?.KASSA_WORKERS ?? '1';
      expect(workers).toMatch(/^\d+$/);
      pooled += Number(workers) * (node.environment?.KASSA_POSTGRES_LISTEN === 'on' ? 11 : 10);
    }
    expect(pooled).toBeLessThanOrEqual(maxConnections - 20);
  });

  // docs/operations.md, "A node that freezes inside a transaction": PostgreSQL ends such a session, freeing its locks.
  it('PostgreSQL ends a session idle in a transaction after 60 s and probes silent clients after 60 s', () => {
    const command = (compose.services.postgres as { command?: string[] }).command ?? [];
    expect(command).toContain('idle_in_transaction_session_timeout=60s');
    expect(command).toContain('tcp_keepalives_idle=60');
  });

  it('every node gets the same secrets, and compose refuses to start without them', () => {
    const secrets = kassaNodes.map(([, s]) =>
      ['KASSA_TOKEN_SECRET', 'KASSA_DATA_KEY', 'KASSA_ADMIN_TOKEN', 'DATABASE_URL'].map((k) => s.environment?.[k]),
    );
    expect(new Set(secrets.map((s) => JSON.stringify(s))).size).toBe(1);
    const tokenSecret = kassaNodes[0]?.[1].environment?.KASSA_TOKEN_SECRET ?? '';
    expect(() => interpolate(tokenSecret, {})).toThrow(/KASSA_TOKEN_SECRET/);
  });
});
