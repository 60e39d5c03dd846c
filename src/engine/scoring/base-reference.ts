/**
 * Base's run of the checks that read a test report (`report`): the reference every candidate's
 * report is held to (src/checks/test-report/judge.ts). Base's tests are the task's measure: those
 * that fail there are its targets, those that pass must keep passing, and a test that base ran and
 * a candidate's report lacks is missing (the early exit, a deleted test), never skipped.
 *
 *   when        as the run starts, beside the candidates' setup and agents (src/engine/run/stages/
 *               candidates.ts): a candidate's first scoring waits for it, which it has usually
 *               long finished by then
 *   where       a worktree of bestof's own at base (`<worktrees root>/<run>/reference`, branch
 *               `<prefix>/<run>/reference`), set up as a candidate's is, scored by ./score.ts as a
 *               candidate's commit is (the checks' sandbox, a fresh HOME, hidden files laid in);
 *               removed after, whatever happened
 *   cache       `.bestof/reference/<key>.json` in the repo, one per check, keyed by base's commit,
 *               the parsers' version (REPORT_PARSER_VERSION), the check's keys, the hidden folder's files, the setup and the sandbox: a second run
 *               on the same base pays nothing. A cached entry is base's own run, never a candidate's
 *   failure     a check whose base run leaves no report, or one without a test that ran, cannot hold
 *               anyone to anything: the run stops, exit 2, with the check's output tail
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { keptAsInBase } from '../../checks/frozen.js';
import type { CheckOutcome } from '../../checks/run-checks.js';
import type { TestCaseResult, TestOutcome, TestReportKind } from '../../checks/test-report/types.js';
import { REPORT_PARSER_VERSION } from '../../checks/test-report/parse.js';
import { deleteBranch } from '../../git/history/refs.js';
import { resolveCommit } from '../../git/running/repo.js';
import { removeWorktree } from '../../git/worktrees/worktree.js';
import { err, ok, type Result } from '../../result.js';
import type { CheckSpec } from '../../spec/schema.js';
import { resolveSpecPath } from '../../spec/load.js';
import { candidateEnv, checkEnv } from '../plan/candidate-env.js';
import type { CandidatePlan, RunPlan } from '../plan/plan.js';
import { CHECK_LOGS_DIR, REFERENCE_CACHE_DIR, REFERENCE_DIR, SETUP_PATHS_FILE } from '../record/run-folder.js';
import type { ReferenceCheck, UnstampedEvent } from '../record/run-types.js';
import { checkSandbox } from '../sandbox/agent-sandbox.js';
import type { SecretSet } from '../sandbox/secrets.js';
import { prepareWorkspace } from '../workspace/workspace.js';
import { scoreCommit } from './score.js';

/** Base's tests by check name. */
export type BaseTests = ReadonlyMap<string, readonly TestCaseResult[]>;

/** Bumped when what a cache entry holds, or how base's run is made, changes: older entries are then not read. */
const CACHE_FORMAT = 1;
const NAME = 'reference';
const OUTCOMES: readonly TestOutcome[] = ['passed', 'failed', 'skipped', 'errored'];

export interface BaseReferenceOptions {
  readonly plan: RunPlan;
  readonly secrets: SecretSet;
  readonly signal: AbortSignal;
  readonly emit: (event: UnstampedEvent) => void;
}

/** The spec's checks that read a test report. */
export function reportChecks(plan: Pick<RunPlan, 'spec'>): readonly CheckSpec[] {
  return plan.spec.checks.items.filter((check) => check.report !== undefined);
}

/** Base's tests for every report check, from the cache or run now; an error (in words, with the fix) when one left nothing to hold candidates to. */
export async function runBaseReference(options: BaseReferenceOptions): Promise<Result<BaseTests, string>> {
  const { plan, emit } = options;
  const checks = reportChecks(plan);
  if (checks.length === 0) return ok(new Map());
  emit({ type: 'reference.started', checks: checks.map((check) => check.name) });
  const tests = new Map<string, readonly TestCaseResult[]>();
  const keys = new Map<string, string>();
  for (const check of checks) {
    const key = await cacheKey(plan, check);
    keys.set(check.name, key);
    const cached = await readCache(plan.repoRoot, key);
    if (cached) tests.set(check.name, cached);
  }
  const toRun = checks.filter((check) => !tests.has(check.name));
  let error: string | undefined;
  if (toRun.length > 0) {
    const ran = await runOnBase(options, toRun);
    if (!ran.ok) error = ran.error;
    else {
      for (const [name, found] of ran.value) {
        tests.set(name, found);
        await writeCache(plan.repoRoot, keys.get(name)!, found);
      }
    }
  }
  const summary: ReferenceCheck[] = checks.flatMap((check) => {
    const found = tests.get(check.name);
    return found ? [{ name: check.name, tests: found.length, failing: found.filter((t) => t.outcome === 'failed' || t.outcome === 'errored').length }] : [];
  });
  emit({ type: 'reference.finished', cached: toRun.length === 0, checks: summary, ...(error !== undefined ? { error } : {}) });
  return error !== undefined ? err(error) : ok(tests);
}

/** The report checks run on base in a worktree of bestof's own, removed after. */
async function runOnBase(options: BaseReferenceOptions, checks: readonly CheckSpec[]): Promise<Result<Map<string, TestCaseResult[]>, string>> {
  const scored = await scoreOnBase(options, checks, { name: NAME, logDir: join(options.plan.runDir, REFERENCE_DIR) });
  if (!scored.ok)
    return err(
      scored.error === INTERRUPTED ? "base's run of the report checks was interrupted" : `base's run of the report checks could not be set up: ${scored.error}`,
    );
  return testsOf(checks, scored.value);
}

const INTERRUPTED = 'interrupted';

/**
 * `checks` run on base in a worktree of bestof's own (`<worktrees root>/<run>/<name>`, branch
 * `<prefix>/<run>/<name>`), set up and scored as a candidate's commit is, removed after whatever
 * happened (one a killed run left is removed first). Used for the reference above and by the
 * distinguish step (../run/stages/distinguish.ts), which runs its generated tests on base too.
 * The error is why it could not be set up, or INTERRUPTED.
 */
export async function scoreOnBase(
  options: BaseReferenceOptions,
  checks: readonly CheckSpec[],
  where: { readonly name: string; readonly logDir: string },
): Promise<Result<readonly CheckOutcome[], string>> {
  const { plan, signal, secrets } = options;
  const { name, logDir } = where;
  const { spec } = plan;
  const template = plan.candidates[0]!;
  // Beside the candidates' worktrees, as a candidate 0 of its own: BESTOF_CANDIDATE=reference,
  // BESTOF_INDEX=0 and PORT=base_port, which no candidate has (theirs are base_port + 1..n), since
  // this runs while the agents work and a check that serves on $PORT or names a database by the
  // index must not meet an agent's.
  const checker: CandidatePlan = {
    ...template,
    id: name,
    index: 0,
    port: spec.setup.base_port,
    worktree: join(dirname(template.worktree), name),
    branch: `${spec.git.branch_prefix}/${plan.runId}/${name}`,
    ref: `refs/bestof/${plan.runId}/${name}/kept`,
  };
  const remove = async (): Promise<void> => {
    await removeWorktree(plan.repoRoot, checker.worktree, { force: true });
    if ((await resolveCommit(plan.repoRoot, `refs/heads/${checker.branch}`)) !== undefined) await deleteBranch(plan.repoRoot, checker.branch, { force: true });
  };
  await remove(); // one a killed run left
  await mkdir(logDir, { recursive: true });
  try {
    const prepared = await prepareWorkspace({
      mode: 'new',
      repoRoot: plan.repoRoot,
      worktree: checker.worktree,
      branch: checker.branch,
      keptRef: checker.ref,
      baseCommit: plan.baseCommit,
      copy: spec.setup.copy,
      link: spec.setup.link,
      commands: spec.setup.commands,
      commandTimeoutMs: spec.setup.timeout,
      env: candidateEnv(plan, checker),
      logFile: join(logDir, 'setup.log'),
      logRedactor: () => secrets.createStreamRedactor(),
      setupPathsFile: join(logDir, SETUP_PATHS_FILE),
      sandboxed: plan.sandbox.enabled,
      signal,
    });
    if (!prepared.ok) return err(prepared.error.message);
    const env = checkEnv(plan, checker);
    const scoring = await scoreCommit({
      worktree: checker.worktree,
      baseCommit: plan.baseCommit,
      commit: plan.baseCommit,
      frozen: keptAsInBase(spec.checks),
      editable: spec.checks.editable,
      runner: plan.runner,
      checks,
      keepPaths: prepared.value.setupPaths,
      env,
      checkSandbox: (home) => checkSandbox(plan, checker, env, home),
      logDir: join(logDir, CHECK_LOGS_DIR),
      logRedactor: () => secrets.createStreamRedactor(),
      signal,
    });
    if (signal.aborted) return err(INTERRUPTED);
    return ok(scoring.checks);
  } finally {
    await remove();
  }
}

function testsOf(checks: readonly CheckSpec[], outcomes: readonly CheckOutcome[]): Result<Map<string, TestCaseResult[]>, string> {
  const tests = new Map<string, TestCaseResult[]>();
  for (const check of checks) {
    const outcome = outcomes.find((o) => o.name === check.name);
    const report = outcome?.report;
    if (!outcome || !report || report.expected === 0) return err(noReportOnBase(check, outcome));
    tests.set(
      check.name,
      report.tests.flatMap((t) => (t.outcome === 'missing' ? [] : [{ name: t.name, outcome: t.outcome, ...(t.message ? { message: t.message } : {}) }])),
    );
  }
  return ok(tests);
}

const REPORT_HOW: Record<TestReportKind, string> = {
  junit:
    'write JUnit XML into $BESTOF_REPORT_DIR (node --test --test-reporter=junit --test-reporter-destination=$BESTOF_REPORT_DIR/junit.xml, or pytest --junitxml=$BESTOF_REPORT_DIR/junit.xml)',
  tap: 'print TAP on stdout (node --test --test-reporter=tap)',
  'go-json': 'print `go test -json` on stdout (go test -json ./...)',
};

function noReportOnBase(check: CheckSpec, outcome: CheckOutcome | undefined): string {
  const why = outcome?.report?.failure ?? (outcome ? 'no test report' : 'it did not run');
  const tail = (outcome?.outputTail ?? '').split('\n').slice(-8).join('\n').trim();
  return `check ${check.name} (report = "${check.report}") left nothing to hold the candidates to when it ran on base: ${why}. Its command must ${REPORT_HOW[check.report!]}; fix checks.items "${check.name}" and run again${tail ? `. Its output ended:\n${tail}` : ''}`;
}

async function cacheKey(plan: RunPlan, check: CheckSpec): Promise<string> {
  const { spec } = plan;
  const hidden = check.hidden ? await folderDigest(resolveSpecPath(plan.specDir, check.hidden)) : undefined;
  const what = {
    format: CACHE_FORMAT,
    parser: REPORT_PARSER_VERSION,
    base: plan.baseCommit,
    check: { name: check.name, command: check.command, report: check.report, timeout: check.timeout, into: check.into, hidden },
    setup: spec.setup,
    sandbox: { agents: plan.sandbox.enabled, checks: spec.sandbox?.checks, network: spec.sandbox?.check_network },
  };
  return createHash('sha256').update(JSON.stringify(what)).digest('hex');
}

/** The hidden folder's files, names and contents: a changed hidden test is a new reference. */
async function folderDigest(folder: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile())
        hash
          .update(`${relative(folder, path)}\0`)
          .update(await readFile(path))
          .update('\0');
    }
  };
  await walk(folder);
  return hash.digest('hex');
}

async function readCache(repoRoot: string, key: string): Promise<TestCaseResult[] | undefined> {
  try {
    const data = JSON.parse(await readFile(join(repoRoot, REFERENCE_CACHE_DIR, `${key}.json`), 'utf8')) as { format?: unknown; tests?: unknown };
    if (data.format !== CACHE_FORMAT || !Array.isArray(data.tests) || data.tests.length === 0) return undefined;
    const valid = data.tests.every((t: { name?: unknown; outcome?: unknown }) => typeof t?.name === 'string' && OUTCOMES.includes(t.outcome as TestOutcome));
    return valid ? (data.tests as TestCaseResult[]) : undefined;
  } catch {
    return undefined; // none yet, or unreadable: run base again
  }
}

async function writeCache(repoRoot: string, key: string, tests: readonly TestCaseResult[]): Promise<void> {
  const dir = join(repoRoot, REFERENCE_CACHE_DIR);
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${key}.json`);
  // Whole or not at all: a run killed while writing leaves no half entry.
  const part = `${file}.${process.pid}.tmp`;
  await writeFile(part, `${JSON.stringify({ format: CACHE_FORMAT, tests })}\n`);
  await rename(part, file);
}
