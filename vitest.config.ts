import { defineConfig } from 'vitest/config';
import { REPORT_TIER, RUNS_TIER, TMUX_TIER } from './test/tiers.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // The other tiers: test/tiers.ts, test/e2e, test/trust, test/chaos.
    exclude: ['test/e2e/**', 'test/trust/**', 'test/chaos/**', ...TMUX_TIER, ...REPORT_TIER, ...RUNS_TIER, 'node_modules/**'],
    // Integration tests spawn real git and real processes; forks keep them isolated.
    pool: 'forks',
    // Most of a test's time is spent waiting on git and child processes, not on the CPU: three
    // files at a time on a 2-core CI machine keep both cores busy.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
