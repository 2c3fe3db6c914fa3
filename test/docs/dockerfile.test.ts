import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The instructions of the Dockerfile's last stage (the image that runs), continuation lines joined. */
function runtimeStage(): { op: string; args: string }[] {
  const text = readFileSync(`${root}/Dockerfile`, 'utf8').replace(/\\\n/g, ' ');
  const instructions = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [op = '', ...rest] = line.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
  const lastFrom = instructions.map((i) => i.op).lastIndexOf('FROM');
  return instructions.slice(lastFrom);
}

/** `ENV A=1 B=2` instructions up to `before` (an index into the stage), as one map. */
function envOf(stage: { op: string; args: string }[], before = stage.length): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { op, args } of stage.slice(0, before)) {
    if (op !== 'ENV') continue;
    for (const [, k, v] of args.matchAll(/([A-Z0-9_]+)=("[^"]*"|\S+)/g))
      env[k as string] = (v as string).replace(/"/g, '');
  }
  return env;
}

describe('Dockerfile (the image compose.yaml builds)', () => {
  const stage = runtimeStage();
  const workdir = stage.find((i) => i.op === 'WORKDIR')?.args ?? '/';
  const user = stage.findIndex((i) => i.op === 'USER');
  const config = loadConfig(envOf(stage), workdir);

  // A start or a CLI command creates the data dir: /app belongs to root, so `USER node` alone failed with EACCES.
  it('creates the data dir owner-only and hands it to the runtime user before switching to it', () => {
    expect(stage[user]?.args).toBe('node');
    const before = stage.slice(0, user).filter((i) => i.op === 'RUN');
    const dir = posix.normalize(config.dataDir);
    const made = before.find((i) => new RegExp(`mkdir (-p )?${dir}( |$|&)`).test(i.args));
    expect(made?.args).toMatch(new RegExp(`chown (-R )?node(:node)? ${dir}( |$|&)`));
    expect(made?.args).toMatch(new RegExp(`chmod 0?700 ${dir}( |$|&)`));
  });

  it('its settings listen on every interface at the port it exposes, the port compose and the proxy use', () => {
    const exposed = Number(stage.find((i) => i.op === 'EXPOSE')?.args);
    expect(config.host).toBe('0.0.0.0');
    expect(config.port).toBe(exposed);
    const compose = parse(readFileSync(`${root}/compose.yaml`, 'utf8'), { merge: true }) as {
      services: Record<
        string,
        { build?: string; environment?: Record<string, string>; healthcheck?: { test: string[] } }
      >;
      configs: Record<string, { content: string }>;
    };
    for (const node of Object.values(compose.services).filter((s) => s.build !== undefined)) {
      expect(Number(node.environment?.KASSA_PORT)).toBe(exposed);
      expect(node.healthcheck?.test.join(' ')).toContain(`127.0.0.1:${exposed}/healthz`);
    }
    expect(compose.configs.caddyfile?.content).toContain(`kassa-1:${exposed} kassa-2:${exposed}`);
  });

  it('ships the compiled dist/ that bin/kassa.js runs where there is no src/', () => {
    const copied = stage.filter((i) => i.op === 'COPY').map((i) => i.args);
    expect(copied).toContain('--from=build /app/dist ./dist');
    expect(copied).toContain('bin ./bin');
    expect(copied.some((c) => /\bsrc\b/.test(c))).toBe(false);
  });
});
