/**
 * `npm run build` (and `npm run bench`, which measures what `npm start` runs): compiles the TypeScript to JavaScript
 * with tsc and copies the files the compiled code reads beside itself (the hosted pages' browser scripts).
 *
 *   node --import tsx scripts/build.ts [--project tsconfig.build.json] [--out DIR] [--src DIR]
 *
 * `--out` overrides the project's outDir; `--src` is where the compiled src/ lands (default: `--out`, else dist/;
 * tsconfig.bench.json compiles bench/ too, so its src/ is one level down: dist-bench/src).
 *
 * Why compiled: running the sources through tsx costs a loader thread and the transformed sources in memory, about
 * 70–80 MB of resident memory per node under load (issue 12: peak RSS 305–320 MB through tsx, 237 MB compiled, one
 * DIRECT creation run each on SQLite).
 * @throws when tsc reports an error (its output is printed).
 */
import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    project: { type: 'string', default: 'tsconfig.build.json' },
    out: { type: 'string' },
    src: { type: 'string' },
  },
});

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// The compiler's incremental state goes with the output it describes: beside another --out it would name files that
// are not there, and tsc would skip emitting them.
const outDir =
  values.out === undefined ? [] : ['--outDir', values.out, '--tsBuildInfoFile', join(values.out, '.tsbuildinfo')];
execFileSync(process.execPath, [tsc, '-p', values.project, ...outDir], { stdio: 'inherit' });
cpSync('src/hosted/assets', join(values.src ?? values.out ?? 'dist', 'hosted', 'assets'), { recursive: true });
