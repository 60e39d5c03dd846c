import { defineConfig } from 'vitest/config';
import { RUNS_TIER } from './test/tiers.js';

/** The long-runs tier (`npm run test:runs`, which builds first): see test/tiers.ts. */
export default defineConfig({
  test: {
    include: RUNS_TIER,
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
