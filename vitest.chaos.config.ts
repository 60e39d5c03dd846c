import { defineConfig } from 'vitest/config';

/**
 * The chaos tier (`npm run test:chaos`, which builds first): kill -9 of bestof at random instants
 * and right after each kind of event, then resume, through the real binary (issue 9). Bounded to
 * a few minutes; one run at a time, since each trial's timing is the point.
 */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
