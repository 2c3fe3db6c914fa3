import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
// Not test/helpers/cli.ts's: its files wait for the run's compiled build, which these tests do not use.
const KASSA_BIN = fileURLToPath(new URL('../../bin/kassa.js', import.meta.url));
const repoModules = fileURLToPath(new URL('../../node_modules', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A package laid out like the image (bin/ and dist/, no src/ nor tsx) or, with `withSources`, like a checkout. */
function packageDir({ withSources }: { withSources: boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), 'kassa-bin-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'kassa', type: 'module' }));
  mkdirSync(join(dir, 'bin'));
  copyFileSync(KASSA_BIN, join(dir, 'bin', 'kassa.js'));
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist', 'main.js'), "console.log('dist', process.argv.slice(2).join(' '));\n");
  if (withSources) {
    mkdirSync(join(dir, 'src'));
    // TypeScript only tsx runs: a type annotation.
    writeFileSync(
      join(dir, 'src', 'main.ts'),
      "const from: string = 'src';\nconsole.log(from, process.argv.slice(2).join(' '));\n",
    );
    symlinkSync(repoModules, join(dir, 'node_modules'), 'dir');
  }
  return dir;
}

describe('bin/kassa.js', () => {
  // The image copies bin/ and dist/ but not src/: `npx kassa merchant …` there imported ../src/main.ts and failed.
  it('runs the compiled dist/main.js where there are no sources (the image), without needing tsx', async () => {
    const dir = packageDir({ withSources: false });
    const { stdout } = await run(process.execPath, [join(dir, 'bin', 'kassa.js'), 'merchant', 'key', 'list']);
    expect(stdout.trim()).toBe('dist merchant key list');
  });

  it('runs the TypeScript sources through tsx in a checkout, even beside a dist/ an earlier build left', async () => {
    const dir = packageDir({ withSources: true });
    const { stdout } = await run(process.execPath, [join(dir, 'bin', 'kassa.js'), 'migrate']);
    expect(stdout.trim()).toBe('src migrate');
  });

  // The other CLI tests run the run's compiled build (test/helpers/cli.ts): this one runs this checkout's own sources
  // through tsx, with a command that imports the HTTP stack only when it runs (src/cli/program.ts).
  it('in this checkout runs the real sources: `kassa openapi` prints the committed openapi.json', async () => {
    const { stdout } = await run(process.execPath, [KASSA_BIN, 'openapi'], {
      env: { ...process.env, LOG_LEVEL: 'silent' },
      maxBuffer: 16 * 1024 * 1024,
    });
    const committed = JSON.parse(readFileSync(fileURLToPath(new URL('../../openapi.json', import.meta.url)), 'utf8'));
    expect(JSON.parse(stdout)).toEqual(committed);
  }, 60_000);
});
