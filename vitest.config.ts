import { defineConfig } from 'vitest/config';
import { type ProjectName, TIER_FOLDERS, TIERS } from './test/tiers.js';

/**
 * One vitest project per tier (test/tiers.ts says what each covers, how long it takes and what
 * it needs); the npm scripts name one: `vitest run --project <name>`. A bare `vitest run` runs
 * every project, one after another (`sequence.groupOrder`, in test/tiers.ts's order), and needs
 * what every tier needs: run a project, or a file (`vitest run test/tmux/driver.test.ts` finds
 * the file's project and its settings).
 *
 * Every project runs in forks: the tests spawn real git and real processes, and forks keep them
 * isolated.
 */
type Settings = {
  readonly include: string[];
  readonly exclude?: string[];
  readonly maxWorkers?: number;
  readonly fileParallelism?: boolean;
  readonly testTimeout: number;
  readonly hookTimeout: number;
};

const filesOf = (tier: ProjectName): string => {
  const folder = TIERS.find((t) => t.project === tier && t.folder !== undefined)?.folder;
  if (folder === undefined) throw new Error(`test/tiers.ts: the ${tier} project has no folder`);
  return folder;
};

const SETTINGS: Record<ProjectName, Settings> = {
  default: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    exclude: [...TIER_FOLDERS.map((folder) => `${folder}/**`), 'node_modules/**'],
    // Most of a test's time is spent waiting on git and child processes, not on the CPU: three
    // files at a time on a 2-core CI machine keep both cores busy.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
  runs: {
    include: [`${filesOf('runs')}/**/*.test.ts`],
    // Each file drives whole runs of several iterations, sleeps included: two files at a time on a
    // 2-core machine, and a limit per test that fits a run, its kill -9 and two resumes under load
    // (the kill -9 resume test takes 20 s alone and went past 60 s with three such files at once).
    maxWorkers: 2,
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
  tmux: {
    include: [`${filesOf('tmux')}/**/*.test.ts`, `${filesOf('tmux')}/**/*.test.tsx`],
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
  report: {
    include: [`${filesOf('report')}/**/*.test.ts`],
    // One browser at a time: each test file starts its own Chromium on a 2-core machine.
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
  trust: {
    include: [`${filesOf('trust')}/**/*.test.ts`],
    // One bestof run at a time: the race-based adversaries (rivals, daemons) need their timing
    // windows, and two shared cores are not enough for parallel runs of two agents each.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
  chaos: {
    include: [`${filesOf('chaos')}/**/*.test.ts`],
    // One run at a time, since each trial's timing is the point.
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
  e2e: {
    include: [`${filesOf('e2e')}/**/*.test.ts`],
    // One bestof run at a time: each already runs three real CLIs in parallel on 2 cores.
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 600_000,
  },
};

/** The projects in test/tiers.ts's order, each once (node-versions and as-user run another's). */
const PROJECTS: readonly ProjectName[] = [...new Set(TIERS.map((tier) => tier.project))];

export default defineConfig({
  test: {
    // Reporters are the run's, not a project's (vitest allows them only here).
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: PROJECTS.map((name, order) => ({
      test: { name, pool: 'forks', sequence: { groupOrder: order }, ...SETTINGS[name] },
    })),
  },
});
