import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, inject, vi } from 'vitest';

/** Absolute path of the `kassa` bin. */
export const KASSA_BIN = fileURLToPath(new URL('../../bin/kassa.js', import.meta.url));

const run = promisify(execFile);

let compiled: Promise<string> | undefined;

/**
 * The run's compiled `kassa` (dist/main.js's twin, test/helpers/build-setup.ts), once its build has finished: the
 * command `npm start` runs, without tsx's loader. Every `kassa` child of the CLI helpers runs it; test/cli/kassa-bin
 * tests bin/kassa.js's own choice between the sources and dist/. In watch mode there is no build: bin/kassa.js runs
 * the current sources.
 * @throws when the build failed (its output) or has not finished within 5 minutes.
 */
export function compiledKassa(): Promise<string> {
  compiled ??= (async () => {
    const build = inject('kassaBuild');
    if (build === undefined) return KASSA_BIN;
    const { dir, done } = build;
    await vi.waitFor(
      () => {
        if (!existsSync(done)) throw new Error('the test build of Kassa has not finished');
      },
      { timeout: 300_000, interval: 100 },
    );
    const result = JSON.parse(readFileSync(done, 'utf8')) as { code: number | string; output: string };
    if (result.code !== 0) throw new Error(`the test build of Kassa failed (${result.code}):\n${result.output}`);
    return join(dir, 'main.js');
  })();
  return compiled;
}

// Every test file that imports these helpers starts `kassa`: it waits for the build in a hook of its own (Vitest
// evaluates this module anew for each file), so that a file run in the build's first seconds does not spend its
// tests' time limits waiting.
beforeAll(() => compiledKassa().then(() => undefined), 300_000);

/** The data directories cliDataEnv made in this test file (Vitest evaluates modules anew for each file). */
const cliDataDirs: string[] = [];

/**
 * The environment of `kassa` runs on a new data directory (`<tmpdir>/<prefix>XXXXXX`) and its SQLite database:
 * KASSA_DATA_DIR, DATABASE_URL and LOG_LEVEL warn. The test file removes the directories with
 * `afterAll(removeCliDataDirs)`.
 */
export function cliDataEnv(prefix: string): { KASSA_DATA_DIR: string; DATABASE_URL: string; LOG_LEVEL: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cliDataDirs.push(dir);
  return { KASSA_DATA_DIR: dir, DATABASE_URL: `sqlite:${join(dir, 'kassa.db')}`, LOG_LEVEL: 'warn' };
}

/** Removes every data directory cliDataEnv made in this test file. */
export function removeCliDataDirs(): void {
  for (const dir of cliDataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * The environment of a `kassa serve` child listening on https://127.0.0.1:`port` with the run's test certificate,
 * logging warnings only; `settings` adds or overrides variables (DATABASE_URL, KASSA_DATA_DIR, secrets…).
 */
export function serveEnv(port: number, settings: Record<string, string>): Record<string, string> {
  return {
    KASSA_HOST: '127.0.0.1',
    KASSA_PORT: String(port),
    KASSA_PUBLIC_URL: `https://127.0.0.1:${port}`,
    KASSA_TLS_CERT: inject('tlsCertFile'),
    KASSA_TLS_KEY: inject('tlsKeyFile'),
    LOG_LEVEL: 'warn',
    ...settings,
  };
}

/**
 * Runs `kassa <args>` (compiledKassa) as a child process and returns its output; rejects with the output on a non-zero
 * exit.
 */
export async function kassaCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [await compiledKassa(), ...args], { env: { ...process.env, ...env }, timeout: 60_000 });
}

/** Runs `kassa <args>` and returns its exit code and output without throwing. */
export async function kassaCliResult(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await kassaCli(args, env);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** A `kassa serve` child process and everything it printed so far. */
export interface ServerProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves once the output matches, rejects on exit or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `kassa serve` from the run's compiled build (compiledKassa), or from `entry` (another main.js, or
 * bin/kassa.js).
 */
export async function startServerProcess(env: Record<string, string>, entry?: string): Promise<ServerProcess> {
  // Load shedding would answer 503 to the first requests after start-up on a busy test machine (compiling the route
  // schemas blocks the event loop for a moment); a test that is about it sets KASSA_MAX_EVENT_LOOP_DELAY itself.
  const child = spawn(process.execPath, [entry ?? (await compiledKassa()), 'serve'], {
    env: { ...process.env, KASSA_MAX_EVENT_LOOP_DELAY: '0', ...env },
    stdio: 'pipe',
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  child.stderr?.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    async waitFor(pattern, timeoutMs = 30_000) {
      let exited = false;
      try {
        return await vi
          .waitFor(
            () => {
              const m = out.match(pattern);
              if (m) return m;
              if (child.exitCode !== null) exited = true;
              // An exited process prints nothing more: stop waiting at once (vi.waitFor retries only on throw).
              if (exited) return undefined;
              throw new Error('not yet');
            },
            { timeout: timeoutMs, interval: 50 },
          )
          .then((m) => {
            if (m === undefined) throw new Error(`kassa exited (${child.exitCode}):\n${out}`);
            return m;
          });
      } catch (error) {
        if (exited) throw error;
        throw new Error(`timed out waiting for ${pattern}:\n${out}`);
      }
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
