import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Compiles src/ and bench/ to JavaScript (tsconfig.bench.json → dist-bench/, scripts/build.ts), so that the bench
 * children run compiled, as `npm start` runs Kassa, not through tsx. @returns the compiled tree's directory
 * (dist-bench/; its bench children are in dist-bench/bench/). @throws when the build fails.
 */
export function compileBenchChildren(): string {
  console.log('# compiling src/ and bench/ (tsconfig.bench.json → dist-bench/)');
  execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'scripts', 'build.ts'),
      '--project',
      'tsconfig.bench.json',
      '--src',
      'dist-bench/src',
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  return join(ROOT, 'dist-bench');
}
