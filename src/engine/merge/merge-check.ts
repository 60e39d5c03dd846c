/**
 * The merge checked on a moved tip. When `into` has moved past `base` since the run started
 * (another run merged into it, the user committed), the merge's result is not the tree the winner
 * was scored on, and may fail the very checks the winner passed. bestof then makes that result in
 * a worktree of its own, scores it with every check as the final scoring does, and lets the merge
 * go on only when each check the winner passed passes there too.
 *
 *   where `into` is   its tip, and how many commits past base (said in merge.finished, always)
 *   no check          the tip is an ancestor of the commit to merge: the merge's tree is the
 *                     winner's own (ff: any other tip is refused by the fast-forward itself);
 *                     or the spec has no checks
 *   the worktree      `<worktrees root>/<run>/merge-check`, on branch `<prefix>/<run>/merge-check`
 *                     at the tip, set up as a candidate's is (../workspace/workspace.ts), then the merge
 *                     made in it (src/git/history/merge.ts mergeInWorktree); a conflict is not scored:
 *                     the merge itself refuses it, as it always did
 *   the scoring       ../scoring/score.ts with every check, the checks' sandbox when the run has one,
 *                     logs in `<run folder>/merge-check/`
 *   after             worktree and branch removed, whatever happened
 *
 * The checked tree's protected paths are the tip's, not base's: the winner's changes to them are
 * reverted before the merge (./merge-policy.ts), so the merge's result has the tip's, and that is
 * what lands on `into`. Scored against base's, it would be a tree that never reaches the user (a
 * test the user added after base would be taken away for the checks).
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CHECK_LOGS_DIR, SETUP_PATHS_FILE } from '../record/run-folder.js';
import { keptAsInBase } from '../../checks/frozen.js';
import { mergeInWorktree } from '../../git/history/merge.js';
import { commitsSince, deleteBranch, isAncestor } from '../../git/history/refs.js';
import { resolveCommit } from '../../git/running/repo.js';
import { removeWorktree } from '../../git/worktrees/worktree.js';
import { WorktreeReplacedError } from '../../git/guards/guard.js';
import { err, ok, type Result } from '../../result.js';
import { checkSandbox } from '../sandbox/agent-sandbox.js';
import { candidateEnv, checkEnv } from '../plan/candidate-env.js';
import type { MergeOnto } from '../record/events.js';
import type { MergeCheck } from './merge-policy.js';
import type { CandidatePlan, RunPlan } from '../plan/plan.js';
import type { RunState } from '../record/run-state.js';
import type { SecretSet } from '../sandbox/secrets.js';
import type { CheckOutcome } from '../../checks/run-checks.js';
import type { CandidateState } from '../record/run-state.js';
import { scoreCommit, type Scoring } from '../scoring/score.js';
import { reportChecks, type BaseTests } from '../scoring/base-reference.js';
import { listFew, plural } from '../words.js';
import { prepareWorkspace } from '../workspace/workspace.js';

const CHECK_NAME = 'merge-check';
const MAX_LISTED = 5;

export interface MergeCheckRequest {
  readonly winner: CandidatePlan;
  /** What is merged: the winner's scored commit, or bestof's commit on top that reverts protected paths. */
  readonly toMerge: string;
  readonly into: string;
  /** What a message tells the user to `git merge` by hand. */
  readonly byHand: string;
}

/** Where `into` is, and, when it moved so that the merge is not the winner's scored tree, whether the merge's result keeps every check the winner passed. */
/**
 * What the checked merge needs of the run (src/engine/run/run-context.ts's RunContext has it all):
 * this module sits below the run's stages and does not import their context.
 */
export interface MergeCheckContext {
  readonly plan: RunPlan;
  readonly signal: AbortSignal;
  readonly secrets: SecretSet;
  state(): RunState;
  /** Base's tests for the report checks (../scoring/base-reference.ts); none: a report alone decides. */
  baseTests?(): Promise<BaseTests | undefined>;
}

export async function checkMergeOnTip(ctx: MergeCheckContext, request: MergeCheckRequest): Promise<MergeCheck> {
  const { plan } = ctx;
  const { winner, toMerge, into } = request;
  const tip = await resolveCommit(plan.repoRoot, `refs/heads/${into}`);
  if (tip === undefined) return {}; // the merge says what is wrong with `into`
  const onto: MergeOnto = { tip, commitsPastBase: await commitsSince(plan.repoRoot, plan.baseCommit, tip) };
  if (plan.spec.select.merge === 'ff' || plan.spec.checks.items.length === 0 || (await isAncestor(plan.repoRoot, tip, toMerge))) return { onto };

  const moved = (await isAncestor(plan.repoRoot, plan.baseCommit, tip))
    ? `${into} had moved ${plural(onto.commitsPastBase, 'commit')} past base since the run started`
    : `${into} is at ${tip.slice(0, 10)}, which no longer builds on base ${plan.baseCommit.slice(0, 10)}`;
  const kept = `${winner.id}'s work stays on branch ${winner.branch} (and ${winner.ref})`;
  const scored = await scoreMergeOnTip(ctx, winner, { tip, toMerge, into });
  if (!scored.ok)
    return {
      onto,
      refusal: `${moved}, and the merge onto it could not be checked (${scored.error}), so ${into} was not moved; ${kept}: merge it by hand with \`git merge ${request.byHand}\` and run the checks`,
    };
  if (scored.value === 'conflict') return { onto };

  const { commit, scoring } = scored.value;
  const c = ctx.state().candidates[winner.id];
  const failedChecks = scoring.checks.filter((check) => !check.passed).map((check) => check.name);
  const ran = new Set(scoring.checks.map((check) => check.name));
  const passed = passedChecks(c);
  const lost = passed.map((check) => check.name).filter((name) => failedChecks.includes(name) || !ran.has(name));
  // The checks' points only: a loop's score has the review's points in it, which no check of the merge gives.
  const winnerPoints = passed.reduce((sum, check) => sum + check.points, 0);
  const checked = { commit, score: scoring.score, maxScore: scoring.maxScore, failedChecks, lost };
  const points = `${scoring.score}/${scoring.maxScore}`;
  if (scoring.interrupted)
    return { onto: { ...onto, checked }, refusal: `${moved}, and the check of the merge onto it was cancelled, so ${into} was not moved; ${kept}` };
  if (lost.length === 0 && scoring.score >= winnerPoints)
    return { onto: { ...onto, checked }, note: `${moved}: the merge was checked on the new tip: ${points}` };
  const why =
    lost.length > 0
      ? `fails ${listFew(lost, MAX_LISTED)} (which ${winner.id} passed)`
      : `scores ${points}, below ${winner.id}'s ${winnerPoints} (the code the checks ran changed files the spec keeps)`;
  return {
    onto: { ...onto, checked },
    refusal: `${moved}: the merge onto the new tip ${why}, so ${into} was not moved; ${kept}: merge it by hand with \`git merge ${request.byHand}\`, fix what fails, and run the checks (logs in ${join(plan.runDir, CHECK_NAME)})`,
  };
}

/** The checks the winner's scored commit passed: those of the last iteration scored at that commit (the final scoring's included). */
function passedChecks(c: CandidateState | undefined): CheckOutcome[] {
  if (!c?.commit) return [];
  const scored = [...c.iterations].reverse().find((it) => it.commit === c.commit && it.checks.length > 0);
  return (scored?.checks ?? []).filter((check) => check.passed);
}

/**
 * The merge of `toMerge` onto `tip`, made in a worktree of bestof's own and scored there; 'conflict'
 * when git cannot make it (the merge into the user's branch says so). The worktree and its branch are
 * removed after, whatever happened; one a killed run left is removed first.
 */
async function scoreMergeOnTip(
  ctx: MergeCheckContext,
  winner: CandidatePlan,
  at: { readonly tip: string; readonly toMerge: string; readonly into: string },
): Promise<Result<{ commit: string; scoring: Scoring } | 'conflict'>> {
  const { plan, signal } = ctx;
  const { spec } = plan;
  // Beside the candidates' worktrees, with the winner's identity and port: the checks run as they ran for it.
  const checker: CandidatePlan = {
    ...winner,
    worktree: join(dirname(winner.worktree), CHECK_NAME),
    branch: `${spec.git.branch_prefix}/${plan.runId}/${CHECK_NAME}`,
  };
  const logDir = join(plan.runDir, CHECK_NAME);
  let replaced = false;
  const removeChecker = async (): Promise<void> => {
    // A folder the checks' code replaced is left as it stands (as a candidate's is: ../run/stages/finish.ts).
    if (!replaced) await removeWorktree(plan.repoRoot, checker.worktree, { force: true });
    if ((await resolveCommit(plan.repoRoot, `refs/heads/${checker.branch}`)) !== undefined) await deleteBranch(plan.repoRoot, checker.branch, { force: true });
  };
  await removeChecker();
  await mkdir(logDir, { recursive: true });
  try {
    const prepared = await prepareWorkspace({
      mode: 'new',
      repoRoot: plan.repoRoot,
      worktree: checker.worktree,
      branch: checker.branch,
      keptRef: winner.ref,
      baseCommit: at.tip,
      copy: spec.setup.copy,
      link: spec.setup.link,
      commands: spec.setup.commands,
      commandTimeoutMs: spec.setup.timeout,
      env: candidateEnv(plan, checker),
      logFile: join(logDir, 'setup.log'),
      logRedactor: () => ctx.secrets.createStreamRedactor(),
      setupPathsFile: join(logDir, SETUP_PATHS_FILE),
      sandboxed: plan.sandbox.enabled,
      signal,
    });
    if (!prepared.ok) return err(`its worktree could not be set up: ${prepared.error.message}`);
    const merged = await mergeInWorktree(checker.worktree, {
      commit: at.toMerge,
      message: `bestof: check of ${winner.id}'s merge into ${at.into} (run ${plan.runId})`,
      signal,
    });
    if (!merged.ok) return ok('conflict');
    const env = checkEnv(plan, checker);
    const reference = reportChecks(plan).length > 0 ? await ctx.baseTests?.() : undefined;
    const scoring = await scoreCommit({
      worktree: checker.worktree,
      baseCommit: at.tip,
      commit: merged.value,
      frozen: keptAsInBase(spec.checks),
      editable: spec.checks.editable,
      runner: plan.runner,
      checks: spec.checks.items,
      keepPaths: prepared.value.setupPaths,
      env,
      checkSandbox: (home) => checkSandbox(plan, checker, env, home),
      logDir: join(logDir, CHECK_LOGS_DIR),
      logRedactor: () => ctx.secrets.createStreamRedactor(),
      signal,
      ...(reference ? { reference } : {}),
    });
    return ok({ commit: merged.value, scoring });
  } catch (error) {
    // The code the checks ran replaced the folder: nothing of bestof's runs through what stands there now.
    if (!(error instanceof WorktreeReplacedError)) throw error;
    replaced = true;
    return err(error.message);
  } finally {
    await removeChecker();
  }
}
