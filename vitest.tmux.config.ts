import { defineConfig } from 'vitest/config';
import { TMUX_TIER } from './test/tiers.js';

/**
 * The tmux tier (`npm run test:tmux`, which builds first): the tmux driver, the fake interactive
 * Claude Code, the shannon provider and whole shannon runs, and the dashboard in a real pane.
 * Every test drives real terminals; see test/tiers.ts.
 */
export default defineConfig({
  test: {
    include: TMUX_TIER,
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
