import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import 'vitest';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The run's compiled Kassa (scripts/build.ts, what `npm start` runs): `dir` holds main.js once the file `done`
     * exists; `done` holds the build's exit code and output as JSON (test/helpers/cli.ts waits for it).
     */
    kassaBuild: { dir: string; done: string };
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Compiles Kassa once per run, in the background while the first test files run, for the tests that start `kassa`
 * as a child process (test/helpers/cli.ts). A compiled `kassa` run starts in about half the time of one through tsx
 * (0.54 s against 1.05 s for `kassa merchant create` on an idle machine; 3.5-5 s through tsx on a loaded CI machine),
 * and about a hundred such runs are in the suite. Inside the checkout (test-artifacts/, git-ignored) so that the
 * compiled code finds node_modules/ and the package root (the BIN table) as dist/ does.
 * @returns the teardown: stops a build still running and removes the compiled tree.
 */
export default function setup(project: TestProject): () => void {
  const dir = join(ROOT, 'test-artifacts', `kassa-build-${process.pid}`);
  const done = `${dir}.done.json`;
  mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
  const build: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--out', dir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  build.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  build.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  build.once('error', (error) => writeFileSync(done, JSON.stringify({ code: -1, output: String(error) })));
  build.once('exit', (code, signal) => writeFileSync(done, JSON.stringify({ code: code ?? signal, output })));
  project.provide('kassaBuild', { dir, done });
  return () => {
    if (build.exitCode === null && build.signalCode === null) build.kill();
    rmSync(dir, { recursive: true, force: true });
    rmSync(done, { force: true });
  };
}
