/**
 * Which test files run in which tier (read by the vitest configs at the root). The default run
 * (`npm test`) must stay under 10 minutes on a 2-core CI machine; what drives real terminals
 * (tmux sessions, an interactive agent, the UI in a pane) is slow by nature and has a tier of
 * its own, `npm run test:tmux`, which `.ci/run` runs too.
 */
export const TMUX_TIER = [
  'test/tmux/driver.test.ts',
  'test/tmux/fake-claude-tui.test.ts',
  'test/tmux/shannon/**/*.test.ts',
  'test/tmux/shannon-run.test.ts',
  'test/tmux/dashboard-smoke.test.ts',
  'test/tmux/bench-view.test.tsx',
];

/**
 * The report tier (`npm run test:report`, which builds first): report.html and bench.html of
 * real runs opened in a real headless Chromium (Debian's `chromium`, driven by playwright-core).
 * It needs the browser; without it the tier skips, except under CI, where it fails.
 */
export const REPORT_TIER = ['test/report-tier/**/*.test.ts'];

/**
 * The long-runs tier (`npm run test:runs`): files that drive many whole runs (of the built binary, or of the engine in-process),
 * each of several iterations or trials (the loop's every stop rule end to end, the vote with resume
 * after kill -9, benches of three shards, clean of old runs). They were a third of the default run's time; here they keep the
 * default run under its 10 minutes, and `.ci/run` runs them right after it.
 */
export const RUNS_TIER = [
  'test/runs/loop.test.ts',
  'test/runs/loop-flow.test.ts',
  'test/runs/engine-loop.test.ts',
  'test/runs/vote.test.ts',
  'test/runs/bench.test.ts',
  'test/runs/bench-limits.test.ts',
  'test/runs/clean-runs.test.ts',
  // Copy-on-write worktrees: whole runs in a mount namespace, with kill -9, resume and clean.
  'test/runs/cow-worktrees.test.ts',
];
