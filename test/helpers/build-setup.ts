import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import 'vitest';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The run's compiled Kassa (scripts/build.ts, what `npm start` runs): `dir` holds main.js once the file `done`
     * exists; `done` holds the build's exit code and output as JSON (test/helpers/cli.ts waits for it). Undefined in
     * watch mode, where the tests run the sources through bin/kassa.js instead (a build made once would go stale).
     */
    kassaBuild: { dir: string; done: string } | undefined;
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Compiles Kassa once per run, in the background while the first test files run, for the tests that start `kassa`
 * as a child process (test/helpers/cli.ts). A compiled `kassa merchant create` took 0.54 s against 0.90 s through tsx
 * on an idle machine (3.5-5 s through tsx on a loaded CI machine), and about a hundred such runs are in the suite.
 * Inside the checkout (test-artifacts/, git-ignored) so that the compiled code finds node_modules/ and the package root
 * (the BIN table) as dist/ does; in a directory of its own per run, its compiler state (`.tsbuildinfo`) inside it
 * (scripts/build.ts). The done-file is written whole (a rename) once the build's output streams have closed.
 * @returns the teardown: stops a build still running (its whole process group: scripts/build.ts runs tsc as a child)
 *   and removes the compiled tree and the done-file.
 */
export default function setup(project: TestProject): (() => Promise<void>) | undefined {
  if (project.vitest.config.watch) {
    project.provide('kassaBuild', undefined);
    return undefined;
  }
  mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, 'test-artifacts', 'kassa-build-'));
  const done = `${dir}.done.json`;
  const build: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--out', dir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so that the teardown can stop tsc with it
  });
  let output = '';
  build.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  build.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  let stopping = false;
  const report = (code: number | string) => {
    if (stopping) return;
    writeFileSync(`${done}.tmp`, JSON.stringify({ code, output }));
    renameSync(`${done}.tmp`, done);
  };
  const closed = new Promise<void>((resolve) => {
    build.once('error', (error) => {
      output += String(error);
      report(-1);
      resolve();
    });
    build.once('close', (code, signal) => {
      report(code ?? signal ?? -1);
      resolve();
    });
  });
  project.provide('kassaBuild', { dir, done });
  return async () => {
    stopping = true;
    if (build.exitCode === null && build.signalCode === null && build.pid !== undefined) {
      try {
        process.kill(-build.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await closed;
    }
    rmSync(dir, { recursive: true, force: true });
    rmSync(done, { force: true });
    rmSync(`${done}.tmp`, { force: true });
  };
}
