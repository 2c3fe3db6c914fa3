/**
 * Summarizes a `--cpu-prof` profile (`npm run bench -- --profile` writes one per server under bench/profiles/):
 * self time by function and by package/file, top N.
 *
 *   node --import tsx bench/profile-summary.ts bench/profiles/<run>/kassa-sqlite-0.cpuprofile [N]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [N]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  self.set(id, (self.get(id) ?? 0) + dt);
  total += dt;
});

const where = (url: string) => {
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m?.[1]) return m[1];
  if (url.includes('/src/')) return `src/${url.split('/src/')[1]}`;
  if (url.startsWith('node:')) return url;
  return url === '' ? '(native)' : url.replace(/^file:\/\//, '');
};
const fn = new Map<string, number>();
const pkg = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id);
  if (!n) continue;
  const name = `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  fn.set(name, (fn.get(name) ?? 0) + t);
  const p = where(n.callFrame.url);
  pkg.set(p, (pkg.get(p) ?? 0) + t);
}
const print = (title: string, m: Map<string, number>) => {
  console.log(`\n## ${title} (self time, of ${(total / 1e6).toFixed(1)} s)`);
  for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * t) / total).toFixed(1).padStart(5)} %  ${k}`);
  }
};
print('functions', fn);
print('packages / files', pkg);

// Inclusive time: each sample counts once for every distinct function on its stack (what a call costs with its callees).
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const nameOf = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const inclusive = new Map<string, number>();
for (const [id, t] of self) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const n = byId.get(at);
    if (n) seen.add(nameOf(n));
  }
  for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + t);
}
console.log(`\n## functions (inclusive time, of ${(total / 1e6).toFixed(1)} s)`);
for (const [k, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top * 2)) {
  console.log(`${((100 * t) / total).toFixed(1).padStart(5)} %  ${k}`);
}
