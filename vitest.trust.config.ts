import { defineConfig } from 'vitest/config';

/**
 * The trust tier (`npm run test:trust`, which builds first): adversarial agents, one per class of
 * cheating in issue 14, each run through the real binary next to an honest agent, in the
 * sandbox and (where the defence does not depend on it) without.
 */
export default defineConfig({
  test: {
    include: ['test/trust/**/*.test.ts'],
    pool: 'forks',
    // One bestof run at a time: the race-based adversaries (rivals, daemons) need their timing
    // windows, and two shared cores are not enough for parallel runs of two agents each.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
