import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/build-setup.ts'],
    // Two cores: keep file-level parallelism modest so PostgreSQL and HTTPS servers do not starve each other.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
