import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Two cores, yet CI kept them about 60 % busy with two workers (1,518 s of CPU in 1,184 s, the rest waiting on
    // spawned `kassa` processes, Chromium, PostgreSQL and timers): a third worker fills the gaps. Timing-dependent
    // tests carry limits for a loaded machine.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
