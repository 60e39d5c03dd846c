/**
 * The generated tests run on one finalist's scored tree, or on base. Each test file is a check of
 * its own, laid in as a hidden check's files are (src/checks/hidden-files.ts: into the tests folder,
 * only while it runs, never in a commit), and scored by ../scoring/score.ts as a candidate's commit
 * is: the frozen paths as in base, the checks' sandbox, a fresh HOME, base's kept files watched.
 * So a finalist's code meets the tests exactly as it met the spec's checks; what the test run
 * changes is put back after.
 */
import { join } from 'node:path';
import type { CheckOutcome } from '../../checks/run-checks.js';
import { keptAsInBase } from '../../checks/frozen.js';
import type { GeneratedTest, TestRun } from '../../distinguish/types.js';
import type { CheckSpec } from '../../spec/schema.js';
import type { SetupGuard } from '../workspace/setup-guard.js';
import { checkEnv } from '../plan/candidate-env.js';
import type { CandidatePlan, RunPlan } from '../plan/plan.js';
import type { DistinguishPlan } from '../plan/distinguish-plan.js';
import { checkSandbox } from '../sandbox/agent-sandbox.js';
import type { SecretSet } from '../sandbox/secrets.js';
import { scoreCommit, type Scoring } from '../scoring/score.js';
import { distinguishDir, TESTS_SUBDIR } from './paths.js';
import { testSource } from './cross-tests.js';

/** Lines of a failure's output kept in the record (the matrix shows the tail). */
const TAIL_LINES = 12;

/**
 * One check per test file: its id as the name, the command with the file's path; the tester's
 * files laid in at `folder`, a rival's (`cross_tests`) at ./cross-tests.ts CROSS_FOLDER.
 */
export function testChecks(plan: RunPlan, distinguish: DistinguishPlan, tests: readonly GeneratedTest[], folder: string): CheckSpec[] {
  return tests.map((test) => {
    const { hidden, into } = testSource(plan.runDir, test, join(distinguishDir(plan.runDir), TESTS_SUBDIR), folder);
    return {
      name: test.id,
      command: distinguish.command.replaceAll('{file}', shellQuote(`${into}/${test.file}`)),
      score: 1,
      timeout: distinguish.spec.test_timeout,
      from_iteration: 1,
      kind: 'score' as const,
      ...(distinguish.spec.report !== undefined ? { report: distinguish.spec.report } : {}),
      hidden,
      into,
      show_output: true,
    };
  });
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** A check's outcome as a cell of the matrix. */
export function testRun(outcome: CheckOutcome, target: string): TestRun {
  const result: TestRun['outcome'] = outcome.passed ? 'passed' : outcome.timedOut ? 'timed_out' : 'failed';
  // With a report, its failing tests by name first (a person reads which behaviour differs).
  const failing = (outcome.report?.tests ?? [])
    .filter((t) => t.outcome === 'failed' || t.outcome === 'errored')
    .map((t) => `${t.name}${t.message ? `: ${t.message.split('\n')[0]}` : ''}`);
  const why = [...failing, outcome.report?.failure ?? outcome.why].filter((t): t is string => Boolean(t)).join('\n');
  const tail = [why, outcome.outputTail.split('\n').slice(-TAIL_LINES).join('\n').trim()].filter((t): t is string => Boolean(t)).join('\n');
  return { test: outcome.name, target, outcome: result, ...(result !== 'passed' && tail ? { tail } : {}) };
}

export interface FinalistTree {
  readonly candidate: CandidatePlan;
  readonly commit: string;
  readonly keepPaths: readonly string[];
  readonly setupGuard?: SetupGuard | undefined;
}

export interface RunOnFinalistOptions {
  readonly plan: RunPlan;
  readonly secrets: SecretSet;
  readonly signal: AbortSignal;
  readonly checks: readonly CheckSpec[];
  readonly onRun: (run: TestRun) => void;
}

/** The tests on one finalist's scored commit, in its worktree, put back after. */
export async function runOnFinalist(options: RunOnFinalistOptions, finalist: FinalistTree): Promise<Scoring> {
  const { plan, secrets, signal } = options;
  const { candidate } = finalist;
  const env = checkEnv(plan, candidate);
  return scoreCommit({
    worktree: candidate.worktree,
    baseCommit: plan.baseCommit,
    commit: finalist.commit,
    frozen: keptAsInBase(plan.spec.checks),
    editable: plan.spec.checks.editable,
    runner: plan.runner,
    checks: options.checks,
    keepPaths: finalist.keepPaths,
    setupGuard: finalist.setupGuard,
    env,
    checkSandbox: (home) => checkSandbox(plan, candidate, env, home),
    logDir: join(distinguishDir(plan.runDir), 'logs', candidate.id),
    logRedactor: () => secrets.createStreamRedactor(),
    signal,
    onCheck: (check) => options.onRun(testRun(check, candidate.id)),
  });
}
