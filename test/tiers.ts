/**
 * The test tiers, in one table: what each covers, how long it takes, what it needs, and where its
 * files are. vitest.config.ts makes a vitest project of each tier's `project` (with its settings)
 * and takes the folders from here; test/tiers.test.ts checks package.json's scripts and `.ci/run`
 * against this table, so a tier cannot be added, renamed or dropped in one place only.
 *
 * A file's folder says its tier. The default tier (`npm test`) is every test file under test/
 * outside the other tiers' folders, in folders by src layer (test/engine, test/git, ...) plus
 * test/binary (runs of the built binary). It must stay under 10 minutes on a 2-core CI machine:
 * what drives real terminals, many whole runs, a browser, adversaries, kill -9 campaigns or the
 * real agent CLIs is slow by nature and has a tier of its own, which `.ci/run` runs after it.
 */

/** A vitest project (`vitest run --project <name>`); the settings of each are in vitest.config.ts. */
export type ProjectName = 'default' | 'runs' | 'tmux' | 'report' | 'trust' | 'chaos' | 'e2e';

export interface Tier {
  /** The npm script that runs the tier (`npm test`, `npm run test:runs`, ...). */
  readonly script: string;
  /** The vitest project whose files the tier runs. */
  readonly project: ProjectName;
  /**
   * The folder (under the root) that holds the project's files, for a tier that has a project of
   * its own; absent for the default tier (everything else) and for a tier that runs another
   * tier's project in other conditions (another Node, another user).
   */
  readonly folder?: string;
  readonly covers: string;
  /** Wall time on a 2-core machine, as measured on the machines the project is built on. */
  readonly duration: string;
  /** What the machine needs beyond Node, npm and git (`.ci/run` installs it when missing). */
  readonly needs: string;
}

/** In the order `.ci/run` runs them. */
export const TIERS: readonly Tier[] = [
  {
    script: 'test',
    project: 'default',
    covers:
      'every layer of src/ in folders by layer (test/engine, test/git, test/ui, ...), and test/binary: runs of the built bin/bestof.js (commands, exit codes, clean, secrets, full disk); builds and type-checks first',
    duration: '3 to 9 minutes',
    needs: 'Go and make (bestof init on a Go and a make repo); root for two tests, skipped without it',
  },
  {
    script: 'test:runs',
    project: 'runs',
    folder: 'test/runs',
    covers:
      "files that drive many whole runs, each of several iterations or trials: the loop's every stop rule end to end, the vote and its resume after kill -9, the distinguishing tests, the merge modes, benches of three shards and the pick against an oracle, benches mined from the real history of ../shared/corpora (more-itertools, pkg/errors; skipped where it is absent) and run with a reference and a no-op agent, a mining killed with kill -9 and resumed, clean --runs, copy-on-write worktrees through kill -9, resume and clean",
    duration: '5 to 18 minutes',
    needs: 'nothing more (the copy-on-write files need user namespaces, as bestof does)',
  },
  {
    script: 'test:tmux',
    project: 'tmux',
    folder: 'test/tmux',
    covers:
      'what drives real terminals: the tmux driver, the fake interactive Claude Code, the shannon provider and whole shannon runs, the dashboard and the bench view in a real pane',
    duration: '1 to 3 minutes',
    needs: 'tmux',
  },
  {
    script: 'test:report',
    project: 'report',
    folder: 'test/report-tier',
    covers:
      'report.html of a real run and bench.html of a real bench opened in headless Chromium: the verdict, the ranking, every diff, no script from the run, no request leaving the page',
    duration: '10 seconds to 2 minutes',
    needs: "Debian's chromium (skips without it, fails under CI)",
  },
  {
    script: 'test:trust',
    project: 'trust',
    folder: 'test/trust',
    covers:
      'adversarial agents, one per way of cheating known, each run next to an honest agent through the real binary, with and without the sandbox; a kill -9 of bestof that must leave no agent alive',
    duration: '2.5 to 6 minutes',
    needs: 'bubblewrap; make, python3 with pytest and cargo for some adversaries (each skips without it)',
  },
  {
    script: 'test:chaos',
    project: 'chaos',
    folder: 'test/chaos',
    covers:
      'kill -9 of bestof right after each kind of event and at pseudo-random instants, then resume: the same winner, merged once, no commit lost, no process or worktree left',
    duration: 'a few minutes (bounded; one trial at a time)',
    needs: 'nothing more',
  },
  {
    script: 'test:node-versions',
    project: 'default',
    covers: "the default tier again under each pinned Node major besides the machine's own (22 and 24), each first on PATH (scripts/test-node-versions.mjs)",
    duration: '2 to 8 minutes',
    needs: 'the npm registry on first use (each Node into .cache/node-versions, about 50 MB)',
  },
  {
    script: 'test:e2e',
    project: 'e2e',
    folder: 'test/e2e',
    covers:
      'the real Claude Code, Codex and Gemini CLIs at pinned versions against a fake model server on 127.0.0.1, as root in a network namespace with only loopback (scripts/test-e2e.mjs)',
    duration: 'about 4 minutes once the CLIs are installed',
    needs: 'the npm registry on first use (the CLIs into .cache/e2e-clis, about 900 MB); root and unshare for the network namespace',
  },
  {
    script: 'test:as-user',
    project: 'trust',
    covers:
      'the trust tier again as a user without root (bestof-ci, made with useradd), in a copy of the checkout given to that user (scripts/test-as-user.mjs)',
    duration: '2.5 to 6 minutes',
    needs: 'root to make the user (as any other user it runs the trust tier as it is); the system python3 with pytest',
  },
];

/** The folders of the tiers with a project of their own: the default tier is everything else. */
export const TIER_FOLDERS: readonly string[] = TIERS.flatMap((tier) => (tier.folder === undefined ? [] : [tier.folder]));
