/**
 * Validation of one proposed task, as SWE-bench does it: the repo's report check run on the trees
 * of ./trees.ts, in the checks' sandbox (./suite.ts).
 *
 *   before     the parent with the commit's tests laid in: at least one test must fail (or be missing)
 *   after ×2   the commit: the tests that fail before must pass, in both runs; a test whose outcome
 *              differs between the two is flaky and dropped from the task
 *   reference  the commit's source over the parent's tests: the visible checks must pass it, else no
 *              agent could be scored right for the right fix (the commit changed what an old test expects)
 *
 * fail-to-pass: fails or is missing before, passes in both runs after. pass-to-pass: passes before
 * and in both runs after. A test that fails both before and after is neither (broken, or needs what
 * this machine lacks) and is not expected of anyone.
 */
import { join } from 'node:path';
import type { TestOutcome } from '../../checks/test-report/types.js';
import { exportCommit, layFilesOf } from './trees.js';
import { runSuite, type SuiteCheck, type SuiteRun, type SuiteSandbox } from './suite.js';
import type { CommitFiles, MinedCommit, RejectionReason } from './types.js';

type Outcomes = ReadonlyMap<string, TestOutcome>;

export type Judgement =
  | { readonly kept: true; readonly failToPass: string[]; readonly passToPass: string[]; readonly flaky: string[] }
  | { readonly kept: false; readonly reason: RejectionReason; readonly detail: string };

/** What the runs say of the task (a pure function of their outcomes). */
export function judgeRuns(before: Outcomes, after: readonly [Outcomes, Outcomes], reference: { outcomes: Outcomes; exitCode: number | undefined }): Judgement {
  const [first, second] = after;
  const names = [...new Set([...first.keys(), ...second.keys()])];
  const flaky = names.filter((n) => first.get(n) !== second.get(n));
  const flakySet = new Set(flaky);
  const passesAfter = (n: string) => !flakySet.has(n) && first.get(n) === 'passed';
  const failsBefore = (n: string) => {
    const o = before.get(n);
    return o === undefined || o === 'failed' || o === 'errored';
  };
  const failToPass = names.filter((n) => passesAfter(n) && failsBefore(n));
  const passToPass = names.filter((n) => passesAfter(n) && before.get(n) === 'passed');
  if (failToPass.length === 0) {
    const failingBefore = [...before.entries()].filter(([, o]) => o === 'failed' || o === 'errored').map(([n]) => n);
    const fixedOnlyOnce = failingBefore.filter((n) => flakySet.has(n));
    if (fixedOnlyOnce.length > 0) return { kept: false, reason: 'flaky', detail: `passed in one run of the fix only: ${list(fixedOnlyOnce)}` };
    if (failingBefore.length > 0) return { kept: false, reason: 'fails-after', detail: `still failing at the commit: ${list(failingBefore)}` };
    return { kept: false, reason: 'no-fail-before', detail: `all ${before.size} tests pass on the parent with the new tests` };
  }
  const brokenByFix = [...reference.outcomes.entries()].filter(([, o]) => o === 'failed' || o === 'errored').map(([n]) => n);
  if (brokenByFix.length > 0) return { kept: false, reason: 'breaks-visible', detail: `with the fix, the parent's tests fail: ${list(brokenByFix)}` };
  if (reference.exitCode !== 0)
    return { kept: false, reason: 'breaks-visible', detail: `with the fix, the parent's tests exit ${reference.exitCode ?? 'by a signal'}` };
  return { kept: true, failToPass, passToPass, flaky };
}

function list(names: readonly string[]): string {
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}

export interface ValidationInput {
  /** The mining's clone of the repo (its git reads). */
  readonly repo: string;
  readonly commit: MinedCommit;
  readonly files: CommitFiles;
  readonly check: SuiteCheck;
  readonly sandbox: SuiteSandbox;
  /** A folder of this commit's own (made and removed here). */
  readonly workDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
  /** Runs one suite run when a slot is free (the mining's limit on runs at once). */
  readonly slot: <T>(job: () => Promise<T>) => Promise<T>;
}

/**
 * The runs, cheapest verdict first: before the fix alone (a commit whose tests all pass there is
 * rejected after one run), then the commit twice side by side, then the fix over the old tests
 * only for a task that would be kept. Commits are validated side by side (../mine.ts), so the
 * machine stays busy while one commit waits on its next stage.
 */
export async function validate(input: ValidationInput): Promise<Judgement> {
  const { repo, commit, files } = input;
  const testFiles = [...files.tests, ...files.deletedTests];
  const way = (name: string, make: (tree: string) => Promise<string | undefined>): Promise<SuiteRun> =>
    input.slot(async () => {
      const tree = join(input.workDir, name, 'tree');
      const made = await make(tree);
      if (made !== undefined) return { ok: false, why: 'setup-failed', detail: made };
      return runSuite(input.check, tree, join(input.workDir, name, 'scratch'), input.sandbox, input.env, input.signal);
    });
  const failed = (run: SuiteRun & { ok: false }, when: string): Judgement => ({ kept: false, reason: run.why, detail: `${when}: ${run.detail}` });

  const before = await way('before', async (tree) => (await exportCommit(repo, commit.parent, tree)) ?? layFilesOf(repo, commit.sha, files.tests, tree));
  if (!before.ok) return failed(before, 'before the fix');
  if (![...before.outcomes.values()].some((o) => o === 'failed' || o === 'errored')) {
    return { kept: false, reason: 'no-fail-before', detail: `all ${before.outcomes.size} tests pass on the parent with the new tests` };
  }
  const [after1, after2] = await Promise.all([
    way('after-1', (tree) => exportCommit(repo, commit.sha, tree)),
    way('after-2', (tree) => exportCommit(repo, commit.sha, tree)),
  ]);
  if (!after1.ok) return failed(after1, 'at the commit');
  if (!after2.ok) return failed(after2, 'at the commit, again');
  const withoutReference = judgeRuns(before.outcomes, [after1.outcomes, after2.outcomes], { outcomes: new Map(), exitCode: 0 });
  if (!withoutReference.kept) return withoutReference;
  const reference = await way('reference', async (tree) => (await exportCommit(repo, commit.sha, tree)) ?? layFilesOf(repo, commit.parent, testFiles, tree));
  if (!reference.ok) return failed(reference, 'with the fix over the old tests');
  return judgeRuns(before.outcomes, [after1.outcomes, after2.outcomes], reference);
}
