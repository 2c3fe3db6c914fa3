/**
 * A throwaway PostgreSQL cluster that one test owns (initdb + pg_ctl under /tmp, on its own port), so that it may stop
 * and restart the server without disturbing the shared test server or other tests.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/test-kassa.js';

/** Directory of initdb and pg_ctl: Debian's newest /usr/lib/postgresql/<v>/bin, else whatever PATH has. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], 'bin');
  }
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    return initdb ? initdb.replace(/\/initdb$/, '') : undefined;
  } catch {
    return undefined;
  }
}

const asRoot = userInfo().uid === 0;

/** Runs a PostgreSQL binary as the postgres user when we are root (initdb refuses root). */
function pgRun(bin: string, args: string[]): void {
  const command = [bin, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  // stdio ignored: the postmaster pg_ctl starts would inherit pipes and keep a synchronous call waiting forever.
  if (asRoot) execFileSync('su', ['postgres', '-c', command], { stdio: 'ignore', timeout: 60_000 });
  else execFileSync('sh', ['-c', command], { stdio: 'ignore', timeout: 60_000 });
}

export interface OwnPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  adminUrl: string;
  stop(): void;
  start(): void;
  destroy(): void;
}

export async function startOwnPostgres(binDir: string): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'kassa-own-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const port = await freePort();
  const data = join(dir, 'data');
  pgRun(join(binDir, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const start = () =>
    pgRun(join(binDir, 'pg_ctl'), [
      '-D',
      data,
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`,
      '-l',
      join(dir, 'log'),
      '-w',
      'start',
    ]);
  start();
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => pgRun(join(binDir, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']),
    start,
    destroy() {
      try {
        pgRun(join(binDir, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
