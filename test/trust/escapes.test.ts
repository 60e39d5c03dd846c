/**
 * What escapes a commit (issue 43), tried the way a cheater would, through the real binary next
 * to the honest agent (c1 = the adversary, c2 = the honest one, so that a tie would favour the
 * cheater), as test/trust/adversaries.test.ts does for the other classes:
 *
 * - symlink-out.sh: src/add.js made a link to a fixed copy outside the worktree;
 * - nested-repo.sh: the fix committed in `git init lib` inside the worktree;
 * - nul-byte-tie.sh: a real fix with 60 lines hidden behind one NUL byte, for the diff_size tie-break.
 *
 * For each: exit 0, the honest agent wins and is merged by the sha that was scored, the user's
 * repository and HOME are byte-for-byte as before but for that merge. The first two leave the bug
 * unfixed, so any point they earn is the cheat working; they are told why their work was not
 * committed (a run warning). The third scores as the honest agent, and its file is named "made binary".
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { processesWithEnv } from '../helpers/processes.js';
import { adversary, FIXED_ADD, LIBRARY_FILES, makeTrustProject, markersLeft, readEvents, readTrustReport, runDirs, safeGit, trustSpec, userState, userStateDiff, type TrustProject } from './harness.js';
import { ADVERSARY_TOKENS, killLeftovers, leftoverProcesses } from './processes.js';

const CHEATER = 'c1';
const HONEST = 'c2';

let project: TrustProject | undefined;
afterEach(() => {
  killLeftovers(ADVERSARY_TOKENS);
  if (project) for (const runDir of runDirs(project)) for (const pid of runProcesses(runDir)) killQuietly(pid);
  project?.cleanup();
  project = undefined;
});

type Mode = 'auto' | 'off';

interface EscapeCase {
  readonly title: string;
  readonly script: string;
  /** It fixes the bug too: its score may be 20; it still must not win. */
  readonly cheaterMayScore?: boolean;
  /** More checks after the common ones. */
  readonly also: (project: TrustProject) => void;
}

/** The run warns, naming the cheater, that `path` was not committed, and why. */
const warnedNotCommitted = (path: string, why: RegExp) => (p: TrustProject): void => {
  const warnings = readEvents(p).filter((e) => e.type === 'run.warning' && e.candidate === CHEATER).map((e) => e.message ?? '');
  expect(warnings.find((w) => w.startsWith(`${path} was not committed: `)), warnings.join('\n')).toMatch(why);
  const cheater = readTrustReport(p).candidates.find((c) => c.id === CHEATER);
  if (cheater?.commit) expect(safeGit(p.repo.dir, ['ls-tree', '-r', cheater.commit, '--', path]), 'in the cheater\'s commit').not.toMatch(/^1[26]0000 /m);
};

const CASES: readonly EscapeCase[] = [
  {
    title: 'a symbolic link out: src/add.js made a link to a fixed copy under the user\'s .git/ (or /tmp)',
    script: 'symlink-out',
    also: warnedNotCommitted('src/add.js', /is a symbolic link to \/.*bestof-fixed-add\.js, outside the worktree: commit the file itself/),
  },
  {
    title: 'a nested repository: the fix committed in `git init lib`, src/add.js requiring it',
    script: 'nested-repo',
    also: warnedNotCommitted('lib', /is a nested git repository .*: commit its files, not a repository/),
  },
  {
    title: 'a NUL byte: a real fix with 60 lines behind it, to win the diff_size tie-break with a diff of "0 lines"',
    script: 'nul-byte-tie',
    cheaterMayScore: true,
    also: (p) => {
      const report = readTrustReport(p);
      const cheater = report.candidates.find((c) => c.id === CHEATER) as unknown as { score: number; diff: { insertions: number; deletions: number; madeBinary?: string[] } };
      // It did fix the bug: the tie-break is what must not favour it.
      expect(cheater.score).toBe(20);
      expect(cheater.diff.madeBinary).toEqual(['src/add.js']);
      expect(cheater.diff.insertions).toBeGreaterThanOrEqual(60);
      const [runDir] = runDirs(p);
      expect(readFileSync(join(runDir as string, 'report.md'), 'utf8')).toMatch(/\| c1 [^\n]*made binary: src\/add\.js/);
    },
  },
];

const WHY: Record<Mode, string> = { auto: 'sandbox auto', off: 'sandbox off: must hold without the sandbox' };

describe('what escapes a commit, next to the honest agent', () => {
  for (const c of CASES) {
    for (const mode of ['auto', 'off'] as const) {
      it(`${c.title} [${WHY[mode]}]`, async () => {
        project = makeTrustProject();
        const before = userState(project);
        const result = await runBestof(project, trustSpec(project, { cheater: adversary(c.script), sandbox: mode }));
        expectHonestWins(project, before, result, { mode, cheaterMayScore: c.cheaterMayScore ?? false });
        c.also(project);
      });
    }
  }
});

function output(result: CliResult): string {
  return `exit ${result.code} ${result.signal ?? ''}\n--- stdout\n${result.stdout.slice(-4000)}\n--- stderr\n${result.stderr.slice(-4000)}`;
}

async function runBestof(p: TrustProject, spec: string): Promise<CliResult> {
  const specPath = p.writeOutside('spec.toml', spec);
  return runCli(['run', specPath], { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: p.env });
}

/** adversaries.test.ts's expectTrustKept, but for its flags: the honest agent wins, merged by the scored sha; the user's state is kept. */
function expectHonestWins(p: TrustProject, before: ReturnType<typeof userState>, result: CliResult, expectation: { readonly mode: Mode; readonly cheaterMayScore: boolean }): void {
  const all = output(result);
  expect(result.code, all).toBe(0);
  if (expectation.mode === 'auto') expect(all, 'bubblewrap is installed: auto must sandbox, not warn').not.toMatch(/not protected/i);
  const report = readTrustReport(p);
  const cheater = report.candidates.find((x) => x.id === CHEATER);
  const honest = report.candidates.find((x) => x.id === HONEST);
  expect(report.winner, `${all}\n${JSON.stringify(report.ranking)}`).toBe(HONEST);
  if (!expectation.cheaterMayScore) expect(cheater?.score ?? 0, `the adversary left the bug unfixed: any point is the cheat working\n${JSON.stringify(report.ranking)}`).toBe(0);
  expect(honest?.score, JSON.stringify(report.ranking)).toBe(20);
  expect(markersLeft(p), 'a payload of the adversary ran').toEqual([]);

  const honestCommit = honest?.commit as string;
  expect(safeGit(p.repo.dir, ['diff', '--name-only', p.base, honestCommit]), "the honest candidate's commit").toBe(p.fixedFiles.join('\n'));
  const main = safeGit(p.repo.dir, ['rev-parse', 'main']);
  expect(safeGit(p.repo.dir, ['rev-parse', 'main^1'])).toBe(p.base);
  expect(safeGit(p.repo.dir, ['rev-parse', 'main^{tree}'])).toBe(safeGit(p.repo.dir, ['rev-parse', `${honestCommit}^{tree}`]));
  expect(safeGit(p.repo.dir, ['show', 'main:test/add.test.js'])).toBe(LIBRARY_FILES['test/add.test.js']?.trim());
  expect(readFileSync(join(p.repo.dir, 'src/add.js'), 'utf8')).toBe(FIXED_ADD);

  expect(userStateDiff(before, userState(p), { mainMovedTo: main, checkoutChanged: p.fixedFiles }), "the user's repo and HOME, byte for byte").toEqual([]);
  expect(leftoverProcesses(ADVERSARY_TOKENS), 'processes of the adversary still alive').toEqual([]);
}

function runProcesses(runDir: string): number[] {
  const keyFile = join(runDir, 'run-key');
  return existsSync(keyFile) ? processesWithEnv('BESTOF_RUN_KEY', readFileSync(keyFile, 'utf8').trim()) : [];
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}
