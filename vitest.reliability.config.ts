import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability`: the reliability suite (hostile input, auth, crash, money). One file at a time (each
 * starts servers or loads one hard), then one summary line per area.
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.reliability.ts'],
    globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/build-setup.ts', 'test/reliability/summary-setup.ts'],
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
