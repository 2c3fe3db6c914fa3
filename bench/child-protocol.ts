import { readFileSync } from 'node:fs';

/**
 * The IPC protocol between bench/run.ts and the server processes it forks: the child sends `{ ready }` once it
 * listens, answers `{ cmd: 'stats' }` with its peak resident set size (kB, peakRssKb) and its current
 * memory use (`process.memoryUsage()`, bytes: where the RSS goes), and on
 * `{ cmd: 'stop' }` closes and exits (which writes its `--cpu-prof` profile, when profiling).
 */
export type ParentMessage = { cmd: 'stats' } | { cmd: 'stop' };
export type ChildMessage =
  | { ready: Record<string, unknown> }
  | { stats: { maxRssKb: number; memory: NodeJS.MemoryUsage } };

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

export function serveBenchChild(ready: Record<string, unknown>, close: () => Promise<unknown>): void {
  const send = (m: ChildMessage) => process.send?.(m);
  process.on('message', (m: ParentMessage) => {
    if (m.cmd === 'stats') {
      send({ stats: { maxRssKb: peakRssKb(), memory: process.memoryUsage() } });
    }
    if (m.cmd === 'stop') {
      void close().finally(() => process.exit(0));
    }
  });
  // The parent died: do not outlive it.
  process.on('disconnect', () => process.exit(0));
  send({ ready });
}
