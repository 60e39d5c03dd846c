import { defineConfig } from 'vitest/config';
import { RUNS_TIER } from './test/tiers.js';

/** The long-runs tier (`npm run test:runs`, which builds first): see test/tiers.ts. */
export default defineConfig({
  test: {
    include: RUNS_TIER,
    pool: 'forks',
    // Each file drives whole runs of several iterations, sleeps included: two files at a time on a
    // 2-core machine, and a limit per test that fits a run, its kill -9 and two resumes under load
    // (the kill -9 resume test takes 20 s alone and went past 60 s with three such files at once).
    maxWorkers: 2,
    testTimeout: 180_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
