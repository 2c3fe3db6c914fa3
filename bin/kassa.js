#!/usr/bin/env node
// The `kassa` command. In a checkout (src/ present) it runs the TypeScript sources through tsx, so `npm ci` leaves
// `npx kassa …` working without a build step, and a dist/ left by an earlier `npm run build` can never run in place
// of newer sources. The container image ships the compiled dist/ and no src/: there it runs dist/main.js, without
// tsx's loader (about 75 MB less memory, scripts/build.ts).
import { existsSync } from 'node:fs';

if (existsSync(new URL('../src/main.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
} else {
  await import('../dist/main.js');
}
