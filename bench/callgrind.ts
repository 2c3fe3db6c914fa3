import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Instructions one thread executed while callgrind collected (its `summary:` line). */
export interface ThreadInstructions {
  /** callgrind's thread number: 1 is the process's main thread (Node's event loop), the others in creation order. */
  thread: number;
  instructions: number;
}

/**
 * The per-thread totals of the callgrind dump files `prefix`.1-NN in `dir` (written by `callgrind_control -d` with
 * `--separate-threads=yes`: one file per thread, `thread: N` and `summary: <Ir>` in each), threads with none left out,
 * by thread number. The dump at the process's exit (`prefix`-NN, part 0 or 2) is not read.
 * @throws Error when no dump of part 1 is in `dir`.
 */
export function readCallgrindDump(dir: string, prefix: string): ThreadInstructions[] {
  const files = readdirSync(dir).filter((f) => f.startsWith(`${prefix}.1-`));
  if (files.length === 0) throw new Error(`no callgrind dump ${prefix}.1-* in ${dir}`);
  return files
    .map((f) => parseCallgrindHeader(readFileSync(join(dir, f), 'utf8')))
    .filter((t) => t.instructions > 0)
    .sort((a, b) => a.thread - b.thread);
}

/** The `thread:` and `summary:` lines of one callgrind output file (format: valgrind's callgrind manual, §3.1). */
export function parseCallgrindHeader(text: string): ThreadInstructions {
  const thread = /^thread: (\d+)$/m.exec(text)?.[1];
  const summary = /^summary: (\d+)$/m.exec(text)?.[1];
  if (thread === undefined || summary === undefined) throw new Error('not a callgrind file with thread and summary');
  return { thread: Number(thread), instructions: Number(summary) };
}
