/**
 * A task's oracle (its checks of `kind = "oracle"`, src/spec/oracle-checks.ts), run by the bench
 * itself on every candidate of a trial once the trial's run is over. The run never saw it: the
 * trial's spec leaves it out (./run-trial.ts), so no agent, prompt, score or report of the run
 * holds it, and it can tell whether each candidate is right where the scored checks do not look.
 *
 *   what      the candidate's final commit, read from its kept ref (`refs/bestof/<run>/<c>/kept`,
 *             report.json's `ref`; its `commit` when the ref is gone), with base's frozen and
 *             protected paths put back over it as the run's scoring does: a candidate that edited
 *             the tests cannot pass the oracle by them. A candidate with no commit fails.
 *   where     a clean export of that commit (git archive: no .git, nothing untracked) in the
 *             bench's own folder, `<out>/oracle/<run>/<candidate>`, removed after; a hidden oracle's
 *             folder is laid in at its `into` (src/checks/hidden-files.ts) for its command only
 *   how       each oracle check's command, with bash, in that folder, with the check's timeout; in
 *             bubblewrap when the task's spec sandboxes its checks and bubblewrap works here: the
 *             candidate's code the oracle runs sees its own export and a fresh HOME, never the
 *             user's HOME, the bench's folder (other candidates, other trials) nor the oracle's own
 *             folder, whose files it gets only as laid in
 *
 * Never throws for what a candidate or a command did: a failure is a verdict with its reason.
 */
import { mkdir, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { layHiddenFiles } from '../checks/hidden-files.js';
import { makeReportDir, readReportDir, stdoutCollector } from '../checks/test-report/read-report.js';
import { judgeExpected, readExpectedTests } from './oracle-expect.js';
import { frozenPathspecs, keptAsInBase } from '../checks/frozen.js';
import { pathsMatching, revertPathsCommit } from '../git/history/tree.js';
import { resolveCommit } from '../git/running/repo.js';
import { archiveCommit } from '../git/worktrees/export.js';
import { extractTar } from '../process/extract-tar.js';
import { probeSandbox, runShellIn, type SandboxLayout } from '../process/sandbox.js';
import type { LoadedSpec } from '../spec/load.js';
import { resolveSpecPath } from '../spec/load.js';
import { oracleChecks } from '../spec/oracle-checks.js';
import type { OracleVerdict } from './types.js';

/** A candidate of the trial's report.json, as far as the oracle needs it. */
export interface OracleCandidate {
  readonly id: string;
  /** Its kept ref, when the run recorded one. */
  readonly ref: string | null;
  readonly commit: string | null;
}

export interface OracleRun {
  /** The task's repo, where the trial's refs are. */
  readonly repo: string;
  readonly base: string;
  readonly loaded: LoadedSpec;
  readonly runId: string;
  readonly candidates: readonly OracleCandidate[];
  /** The bench's own folder for the exports (`<out>/oracle`); the oracle's sandbox hides its parent, the bench's folder. */
  readonly workDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
}

/** Whether the task has an oracle to run. */
export function hasOracle(loaded: LoadedSpec): boolean {
  return oracleChecks(loaded.spec).length > 0;
}

/** Every candidate's verdict, in the order given; one at a time (an oracle is a test suite, and trials already run side by side). */
export async function runOracle(run: OracleRun): Promise<OracleVerdict[]> {
  const verdicts: OracleVerdict[] = [];
  const layout = await oracleSandbox(run);
  for (const candidate of run.candidates) verdicts.push(await judge(run, candidate, layout));
  return verdicts;
}

async function judge(run: OracleRun, candidate: OracleCandidate, sandbox: SandboxBase | undefined): Promise<OracleVerdict> {
  const verdict = (passed: boolean, why: string): OracleVerdict => ({ candidate: candidate.id, passed, why });
  const commit = await finalCommit(run.repo, candidate);
  if (commit === undefined) return verdict(false, 'no commit: the candidate left no work to judge');
  const scored = await withBaseProtectedPaths(run, commit);
  if (typeof scored !== 'string') return verdict(false, scored.error);
  const dir = join(run.workDir, run.runId, candidate.id);
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'tree'), { recursive: true });
  try {
    const tar = join(dir, 'commit.tar');
    const archived = await archiveCommit(run.repo, scored, tar);
    if (!archived.ok) return verdict(false, `the oracle could not export the commit: ${archived.error}`);
    const extracted = await extractTar(tar, join(dir, 'tree'));
    await rm(tar, { force: true });
    if (extracted !== undefined) return verdict(false, `the oracle could not export the commit: ${extracted}`);
    for (const [index, check] of oracleChecks(run.loaded.spec).entries()) {
      // A report check's own folder ($BESTOF_REPORT_DIR), outside the export, writable in the sandbox.
      const reportDir = check.report !== undefined ? await makeReportDir(join(dir, 'reports'), index) : undefined;
      const layout = sandbox && { ...sandbox, workdir: join(dir, 'tree'), home: join(dir, 'home'), writable: reportDir ? [reportDir] : [] };
      const failed = await runCheck(run, check, join(dir, 'tree'), layout, reportDir);
      if (failed !== undefined) return verdict(false, `oracle check ${check.name}${failed.startsWith(':') ? '' : ' '}${failed}`);
    }
    return verdict(true, '');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

type OracleCheck = ReturnType<typeof oracleChecks>[number];

/** Runs one oracle check in `tree`; what went wrong, or undefined when it passed. */
async function runCheck(
  run: OracleRun,
  check: OracleCheck,
  tree: string,
  layout: SandboxLayout | undefined,
  reportDir: string | undefined,
): Promise<string | undefined> {
  const expected = check.expect !== undefined ? await readExpectedTests(resolveSpecPath(run.loaded.specDir, check.expect)) : undefined;
  if (expected !== undefined && !expected.ok) return `did not run: ${expected.why}`;
  const laid =
    check.hidden !== undefined && check.into !== undefined
      ? await layHiddenFiles(tree, { name: check.name, hidden: resolveSpecPath(run.loaded.specDir, check.hidden), into: check.into })
      : undefined;
  if (laid !== undefined && !laid.ok) return `did not run: ${laid.reason}`;
  const stdout = check.report === 'tap' || check.report === 'go-json' ? stdoutCollector() : undefined;
  const env = reportDir ? { ...run.env, BESTOF_REPORT_DIR: reportDir } : run.env;
  const result = await runShellIn(
    check.command,
    { cwd: tree, env, timeoutMs: check.timeout, signal: run.signal, ...(stdout ? { onStdoutLine: stdout.onLine } : {}) },
    layout,
  );
  // Taken away after each check, as the run's scoring does: the next oracle check may lay its own there.
  if (laid?.ok) await laid.remove();
  if (result.timedOut) return `timed out`;
  // `expect`: the listed tests decide, read from the report, whatever the exit code.
  if (expected?.ok && check.report !== undefined)
    return judgeExpected(check.report, await readReportDir(reportDir ?? '', stdout?.text() ?? ''), expected.tests);
  if (result.ok) return undefined;
  const said = `${result.stderr}\n${result.stdout}`.trim().split('\n').slice(-2).join(' / ');
  const how = result.spawnError ?? (result.signal ? `was ended by ${result.signal}` : `exited with ${result.exitCode}`);
  return said ? `${how}: ${said}` : how;
}

/** The candidate's kept ref, else its recorded commit, if either is a commit of the repo. */
async function finalCommit(repo: string, candidate: OracleCandidate): Promise<string | undefined> {
  for (const rev of [candidate.ref, candidate.commit]) {
    const found = rev ? await resolveCommit(repo, rev) : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The commit as the run scores it: base's frozen and protected paths put back over it (a commit of bestof's, no ref). */
async function withBaseProtectedPaths(run: OracleRun, commit: string): Promise<string | { error: string }> {
  const pathspecs = frozenPathspecs(keptAsInBase(run.loaded.spec.checks));
  const [ours, theirs] = await Promise.all([pathsMatching(run.repo, run.base, pathspecs), pathsMatching(run.repo, commit, pathspecs)]);
  const made = await revertPathsCommit(run.repo, {
    base: run.base,
    commit,
    paths: [...new Set([...ours, ...theirs])],
    message: 'bestof bench: frozen paths as in base, for the oracle',
    signal: run.signal,
  });
  return made.ok ? made.value : { error: `the oracle could not put base's frozen paths back: ${made.error}` };
}

type SandboxBase = Omit<SandboxLayout, 'workdir' | 'home'>;

/** The oracle's sandbox, as the task's checks get theirs; undefined when they run without one. */
async function oracleSandbox(run: OracleRun): Promise<SandboxBase | undefined> {
  const { sandbox } = run.loaded.spec;
  if (sandbox.mode === 'off' || !sandbox.checks) return undefined;
  const probe = await probeSandbox();
  if (!probe.ok) return undefined;
  const hiddenFolders = oracleChecks(run.loaded.spec).flatMap((c) => (c.hidden !== undefined ? [resolveSpecPath(run.loaded.specDir, c.hidden)] : []));
  const home = run.env.HOME || homedir();
  return {
    bwrap: probe.bwrap,
    // The bench's folder holds every trial's repo and spec and the other candidates' exports (the export judged is bound back).
    hidden: [dirname(run.workDir), run.repo, ...(home !== '/' ? [home] : []), ...hiddenFolders],
    writable: [],
    readOnly: [],
    pathVariable: run.env.PATH,
    ownNetwork: sandbox.check_network !== 'shared',
  };
}
