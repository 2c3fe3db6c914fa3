/**
 * The IPC protocol between bench/run.ts and the server processes it forks: the child sends `{ ready }` once it
 * listens, answers `{ cmd: 'stats' }` with its peak resident set size (kB, `process.resourceUsage().maxRSS`) and its current
 * memory use (`process.memoryUsage()`, bytes: where the RSS goes), and on
 * `{ cmd: 'stop' }` closes and exits (which writes its `--cpu-prof` profile, when profiling).
 */
export type ParentMessage = { cmd: 'stats' } | { cmd: 'stop' };
export type ChildMessage =
  | { ready: Record<string, unknown> }
  | { stats: { maxRssKb: number; memory: NodeJS.MemoryUsage } };

export function serveBenchChild(ready: Record<string, unknown>, close: () => Promise<unknown>): void {
  const send = (m: ChildMessage) => process.send?.(m);
  process.on('message', (m: ParentMessage) => {
    if (m.cmd === 'stats') {
      send({ stats: { maxRssKb: process.resourceUsage().maxRSS, memory: process.memoryUsage() } });
    }
    if (m.cmd === 'stop') {
      void close().finally(() => process.exit(0));
    }
  });
  // The parent died: do not outlive it.
  process.on('disconnect', () => process.exit(0));
  send({ ready });
}
