import { readFileSync } from 'node:fs';
import type { RecordableHistogram } from 'node:perf_hooks';

/**
 * The IPC protocol between bench/run.ts and the server processes it forks: the child sends `{ ready }` once it
 * listens, answers `{ cmd: 'stats' }` with its peak resident set size (kB, peakRssKb), its current
 * memory use (`process.memoryUsage()`, bytes: where the RSS goes) and, on SQLite, its COMMITs since the previous
 * answer (CommitFigures), and on `{ cmd: 'stop' }` closes and exits (which writes its `--cpu-prof` profile, when
 * profiling).
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
  commits?: CommitFigures;
}

/** The COMMITs of the SQLite group commit in a window (GroupCommitStats.commitDurations), durations in ms. */
export interface CommitFigures {
  commits: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * The figures of `durations` (nanoseconds) so far, undefined when it holds none; then empties it, so that the next
 * call covers only what came after this one (the bench asks once after a phase's warm-up and once after the phase).
 */
export function takeCommitFigures(durations: RecordableHistogram): CommitFigures | undefined {
  if (durations.count === 0) return undefined;
  const ms = (ns: number) => Math.round(ns / 10_000) / 100;
  const figures = {
    commits: durations.count,
    p50Ms: ms(durations.percentile(50)),
    p99Ms: ms(durations.percentile(99)),
    maxMs: ms(durations.max),
  };
  durations.reset();
  return figures;
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

/** @param commits the child's COMMITs since the previous call (takeCommitFigures), when it has a group commit. */
export function serveBenchChild(
  ready: Record<string, unknown>,
  close: () => Promise<unknown>,
  commits: () => CommitFigures | undefined = () => undefined,
): void {
  const send = (m: ChildMessage) => process.send?.(m);
  process.on('message', (m: ParentMessage) => {
    if (m.cmd === 'stats') {
      const figures = commits();
      send({ stats: { maxRssKb: peakRssKb(), memory: process.memoryUsage(), ...(figures && { commits: figures }) } });
    }
    if (m.cmd === 'stop') {
      void close().finally(() => process.exit(0));
    }
  });
  // The parent died: do not outlive it.
  process.on('disconnect', () => process.exit(0));
  send({ ready });
}
