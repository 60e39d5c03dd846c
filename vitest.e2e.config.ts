import { defineConfig } from 'vitest/config';

/**
 * The end-to-end tier (`npm run test:e2e`, which installs the pinned CLIs and builds first):
 * the real claude, codex and gemini binaries against our fake model server on 127.0.0.1.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    pool: 'forks',
    // One bestof run at a time: each already runs three real CLIs in parallel on 2 cores.
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 600_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
