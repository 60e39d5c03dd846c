import { defineConfig } from 'vitest/config';
import { REPORT_TIER } from './test/tiers.js';

/**
 * The report tier (`npm run test:report`, which builds first): real runs and a real bench of the
 * built binary, their report.html and bench.html opened in headless Chromium. See test/tiers.ts.
 */
export default defineConfig({
  test: {
    include: REPORT_TIER,
    pool: 'forks',
    // One browser at a time: each test file starts its own Chromium on a 2-core machine.
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
