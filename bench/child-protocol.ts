import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

/**
 * The IPC protocol between bench/run.ts and the server processes it forks: the child sends `{ ready }` once it
 * listens, answers `{ cmd: 'stats' }` with its peak resident set size (kB, peakRssKb), its current
 * memory use (`process.memoryUsage()`, bytes: where the RSS goes) and, since the previous answer, the durations of
 * its answers timed inside the server (when it times them: timeAnswers) and, on SQLite, of its COMMITs; and on
 * `{ cmd: 'stop' }` closes and exits (which writes its `--cpu-prof` profile, when profiling).
 */
export type ParentMessage = { cmd: 'stats' } | { cmd: 'stop' };
/** What a child sends, by message. */
export interface ChildAnswers {
  ready: Record<string, unknown>;
  stats: ChildStats;
}
/** One message of a child: `{ ready }` or `{ stats }`. */
export type ChildMessage = { [K in keyof ChildAnswers]: Pick<ChildAnswers, K> }[keyof ChildAnswers];

/** A child's answer to `{ cmd: 'stats' }`. */
export interface ChildStats {
  maxRssKb: number;
  memory: NodeJS.MemoryUsage;
  /** Its answers since the previous `stats`, timed inside the server (timeAnswers). */
  answers?: DurationFigures;
  /** The COMMITs of its SQLite group commit since the previous `stats` (GroupCommitStats.commitDurations). */
  commits?: DurationFigures;
}

/** Durations recorded in a window: how many, and their p50, p99 and max, ms. */
export interface DurationFigures {
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * The figures of `durations` (nanoseconds) so far, undefined when it holds none; then empties it, so that the next
 * call covers only what came after this one (the bench asks once after a phase's warm-up and once after the phase).
 */
export function takeDurationFigures(durations: RecordableHistogram): DurationFigures | undefined {
  if (durations.count === 0) return undefined;
  const ms = (ns: number) => Math.round(ns / 10_000) / 100;
  const figures = {
    count: durations.count,
    p50Ms: ms(durations.percentile(50)),
    p99Ms: ms(durations.percentile(99)),
    maxMs: ms(durations.max),
  };
  durations.reset();
  return figures;
}

/**
 * Times every answer of `server` inside the server, nanoseconds: from its request's `request` event (the headers
 * read and parsed) to its response's `finish` (the last bytes handed to the TLS socket). Beside the load generator's
 * latency this tells how much of a tail is the server's own: the rest is reading the request before its headers are
 * parsed, the loopback and the load generator itself, which shares the machine's two cores. Costs the server a
 * listener and two clock readings an answer (the bare baseline is not timed, so this cost is never in its favour).
 */
export function timeAnswers(server: Server): RecordableHistogram {
  const durations = createHistogram();
  server.prependListener('request', (_request, response) => {
    const start = process.hrtime.bigint();
    response.once('finish', () => durations.record(Math.max(1, Number(process.hrtime.bigint() - start))));
  });
  return durations;
}

/**
 * This process's peak resident set size, kB: VmHWM of /proc/self/status on Linux. Not `resourceUsage().maxRSS`:
 * Linux carries ru_maxrss across exec, so a forked child would report its parent's peak (the bench parent holds a
 * 1 GB SQLite cache after `--preload`).
 */
export function peakRssKb(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm?.[1]) return Number(hwm[1]);
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS;
}

/**
 * @param timed `answers`: the server's answer durations (timeAnswers), when it times them; `commits`: its group
 *   commit's COMMIT durations (GroupCommitStats.commitDurations), when it has one. Each `stats` answer gives their
 *   figures since the previous one (takeDurationFigures).
 */
export function serveBenchChild(
  ready: Record<string, unknown>,
  close: () => Promise<unknown>,
  timed: { answers?: RecordableHistogram; commits?: RecordableHistogram } = {},
): void {
  const send = (m: ChildMessage) => process.send?.(m);
  process.on('message', (m: ParentMessage) => {
    if (m.cmd === 'stats') {
      const answers = timed.answers && takeDurationFigures(timed.answers);
      const commits = timed.commits && takeDurationFigures(timed.commits);
      send({
        stats: {
          maxRssKb: peakRssKb(),
          memory: process.memoryUsage(),
          ...(answers && { answers }),
          ...(commits && { commits }),
        },
      });
    }
    if (m.cmd === 'stop') {
      void close().finally(() => process.exit(0));
    }
  });
  // The parent died: do not outlive it.
  process.on('disconnect', () => process.exit(0));
  send({ ready });
}
