/**
 * Which test files run in which tier (read by the vitest configs at the root). The default run
 * (`npm test`) must stay under 10 minutes on a 2-core CI machine; what drives real terminals
 * (tmux sessions, an interactive agent, the UI in a pane) is slow by nature and has a tier of
 * its own, `npm run test:tmux`, which `.ci/run` runs too.
 */
export const TMUX_TIER = [
  'test/process/tmux.test.ts',
  'test/providers/fake-claude-tui.test.ts',
  'test/providers/shannon/**/*.test.ts',
  'test/cli/shannon.test.ts',
  'test/ui/tmux-smoke.test.ts',
  'test/ui/bench-view-tmux.test.tsx',
];
