/**
 * Final scoring: once every loop has ended, each candidate's last commit is scored by the
 * same, complete set of frozen checks, so that a check which counts only from a later
 * iteration (a curriculum, `from_iteration`) counts for everyone. A candidate whose last
 * iteration already ran every check keeps its score; a cancelled one is not scored again.
 *
 * It reads what it needs from the run's state (and the setup paths from the run folder), so a
 * resumed run scores a candidate that had finished before the interruption just the same.
 *
 * A resumed run does not take the record's word for a finished candidate: the event log is a
 * file an agent without a sandbox could have rewritten, its kept ref is what no sandboxed agent
 * can move. So each finished candidate's recorded commit is checked against its kept ref, and
 * the tree of that commit against the one its last score was given for; a candidate that does
 * not match is re-recorded at its ref's commit and scored again here, every check, whatever
 * the record said its score was (see `verifyResumedRecord`).
 */
import { reportChecks } from '../../scoring/base-reference.js';
import { join } from 'node:path';
import { keptAsInBase, putBackCandidateFiles } from '../../../checks/frozen.js';
import { reattachWorktree } from '../../../git/history/checkpoint.js';
import { diffStat, diffSummary } from '../../../git/history/diff.js';
import { commitExists, refCommit } from '../../../git/history/refs.js';
import { treeOf } from '../../../git/history/tree.js';
import { FINAL_CHECKS_DIR, iterationDir, readSetupPaths, setupPathsFile } from '../../record/run-folder.js';
import { checkSandbox } from '../../sandbox/agent-sandbox.js';
import { checkEnv } from '../../plan/candidate-env.js';
import type { RunContext } from '../run-context.js';
import type { CandidateState } from '../../record/run-state.js';
import type { UnstampedEvent } from '../../record/events.js';
import { scoreCommit } from '../../scoring/score.js';
import { setupRebuiltMessage } from '../../loop/iteration.js';
import { keptFilesChangedMessage } from '../../workspace/kept-files-watch.js';
import { FINISHED_STATUSES } from './prepare.js';
import { endedByError } from './candidates.js';
import { notAFolder, WorktreeReplacedError } from '../../../git/guards/guard.js';

export async function finalScoring(ctx: RunContext): Promise<void> {
  const { plan, signal } = ctx;
  const checks = plan.spec.checks.items;
  const rescore = ctx.resume ? await verifyResumedRecord(ctx) : new Set<string>();
  const toScore = plan.candidates.flatMap((candidate) => {
    const c = ctx.state().candidates[candidate.id];
    if (!c?.commit || c.status === 'cancelled' || c.reason === 'internal_error' || c.reason === 'worktree_replaced') return [];
    if (!rescore.has(candidate.id)) {
      if (c.finalScored || !checks.some((check) => check.from_iteration > c.iteration)) return [];
    }
    return [{ candidate, commit: c.commit, iteration: c.iteration, forced: rescore.has(candidate.id) }];
  });

  // Base's tests, which the report checks hold each candidate to (run once, usually done long since).
  const reference = toScore.length > 0 && reportChecks(plan).length > 0 ? await ctx.baseTests() : undefined;
  await Promise.all(
    toScore.map(({ candidate, commit, iteration, forced }) =>
      ctx.queue.add(async () => {
        if (signal.aborted) return;
        const keepPaths = ctx.ends.of(candidate.id)?.setupPaths ?? readSetupPaths(setupPathsFile(plan.runDir, candidate.id));
        if (forced) {
          // Its worktree may be gone, or not at the commit any more: back to exactly `commit`.
          const attached = await reattachWorktree(plan.repoRoot, candidate.worktree, candidate.branch);
          if (!attached.ok) {
            cannotScoreAgain(ctx, candidate.id, attached.error, await notAFolder(candidate.worktree));
            return;
          }
          await putBackCandidateFiles(candidate.worktree, { commit, keep: keepPaths });
        }
        const env = checkEnv(plan, candidate);
        const scoring = await scoreCommit({
          worktree: candidate.worktree,
          baseCommit: plan.baseCommit,
          commit,
          frozen: keptAsInBase(plan.spec.checks),
          editable: plan.spec.checks.editable,
          runner: plan.runner,
          checks,
          keepPaths,
          setupGuard: ctx.ends.of(candidate.id)?.setupGuard,
          env,
          checkSandbox: (home) => checkSandbox(plan, candidate, env, home),
          logDir: join(iterationDir(plan.runDir, candidate.id, iteration), FINAL_CHECKS_DIR),
          logRedactor: () => ctx.secrets.createStreamRedactor(),
          signal,
          onCheck: (check) => ctx.emit({ type: 'check.finished', candidate: candidate.id, iteration, check }),
          ...(reference ? { reference } : {}),
        }).catch((error: unknown) => {
          // The code the checks ran put something else where its worktree was: it ends as a loop
          // would (no point, cannot win, its folder left as it is by finish).
          if (!(error instanceof WorktreeReplacedError)) throw error;
          ctx.emit(endedByError(ctx.state(), candidate.id, 'failed', 'worktree_replaced', error.message));
          return undefined;
        });
        if (!scoring || scoring.interrupted) return;
        if (scoring.setupRebuilt) ctx.emit({ type: 'run.warning', candidate: candidate.id, message: setupRebuiltMessage(candidate.id, scoring.setupRebuilt) });
        if (scoring.keptFilesChanged) {
          ctx.emit({ type: 'run.warning', candidate: candidate.id, message: keptFilesChangedMessage(candidate.id, scoring.keptFilesChanged) });
          ctx.emit({ type: 'candidate.tampered', candidate: candidate.id, iteration, paths: scoring.keptFilesChanged });
        }
        ctx.emit({
          type: 'candidate.scored',
          candidate: candidate.id,
          iteration,
          // Review points are not part of the final score: the review judged an earlier state of the loop.
          score: scoring.score,
          maxScore: plan.maxScore,
          failedChecks: scoring.checks.filter((check) => !check.passed).map((check) => check.name),
          final: true,
        });
      }),
    ),
  );
}

/**
 * A finished candidate whose record must be scored again (it could have been forged) and cannot be:
 * the score in the record does not count. A link where its worktree was (put there before the kill
 * by its agent, or by the code its checks ran) ends it as worktree_replaced; otherwise it is
 * re-recorded with no point (as a record that does not match git is), and cannot win.
 */
function cannotScoreAgain(ctx: RunContext, id: string, why: string, standing: string | undefined): void {
  const c = ctx.state().candidates[id];
  if (!c) return;
  if (standing !== undefined) {
    ctx.emit(
      endedByError(
        ctx.state(),
        id,
        'failed',
        'worktree_replaced',
        `its worktree folder is ${standing}, not the folder bestof made, so its record cannot be scored again`,
      ),
    );
    return;
  }
  ctx.emit({
    type: 'run.warning',
    candidate: id,
    message: `cannot score it again: ${why}; the score in its record cannot be verified, so it counts no point and it cannot win (its work stays at ${c.ref ?? 'its kept ref'})`,
  });
  ctx.emit(reRecorded(c, { message: `its record could not be scored again on resume: ${why}`, commit: c.commit, diff: c.diff, costUsd: c.costUsd }));
}

/** A finished candidate's candidate.finished written again on resume, with no point: as it finished, but at `commit`. */
function reRecorded(
  c: CandidateState,
  at: { readonly message: string; readonly commit: string | undefined; readonly diff: CandidateState['diff']; readonly costUsd: number },
): UnstampedEvent {
  return {
    type: 'candidate.finished',
    candidate: c.id,
    status: c.status === 'done' || c.status === 'failed' || c.status === 'stopped' ? c.status : 'stopped',
    reason: c.reason ?? 'completed',
    message: at.message,
    iterations: c.iteration,
    score: 0,
    commit: at.commit,
    diff: at.diff,
    durationMs: c.durationMs,
    costUsd: at.costUsd,
  };
}

/**
 * Checks every candidate that had finished before the resume against git, and returns those
 * to score again. For each one with a recorded commit:
 * - its kept ref is missing: nothing can vouch for the record; it is left to the selection,
 *   which makes it ineligible, and it is not scored;
 * - its kept ref points elsewhere, or the recorded commit's tree is not the one its last
 *   iteration was scored on: the ref is the truth; the candidate is re-recorded at the ref's
 *   commit (a candidate.committed and a candidate.finished with the diff from git) and scored again.
 * - without the sandbox, every agent could write the run folder: a score in the log may be forged
 *   even for the very commit the kept ref names; with `[sandbox] checks = false`, so could the code
 *   a check ran. Every finished candidate is scored again then; with both sandboxed the run folder
 *   is hidden from every process of a candidate, and a verified record is trusted.
 */
export async function verifyResumedRecord(ctx: RunContext): Promise<Set<string>> {
  const { plan } = ctx;
  const repo = plan.repoRoot;
  const rescore = new Set<string>();
  const unverifiable: string[] = [];
  for (const candidate of plan.candidates) {
    const c = ctx.state().candidates[candidate.id];
    if (!c?.commit || !FINISHED_STATUSES.has(ctx.resume?.candidates[candidate.id]?.status ?? '')) continue;
    const refAt = await refCommit(repo, candidate.ref);
    if (refAt === undefined) {
      ctx.emit({
        type: 'run.warning',
        candidate: candidate.id,
        message: `the record says its work is ${c.commit.slice(0, 10)}, but its kept ref ${candidate.ref} is missing: its record cannot be verified, so it cannot win`,
      });
      continue;
    }
    const mismatch =
      refAt !== c.commit
        ? `the record says its work is ${c.commit.slice(0, 10)}, its kept ref ${candidate.ref} says ${refAt.slice(0, 10)}`
        : await scoredTreeMismatch(repo, c);
    if (mismatch === undefined) {
      if (!plan.sandbox.enabled || !plan.spec.sandbox.checks) {
        unverifiable.push(candidate.id);
        rescore.add(candidate.id);
      }
      continue;
    }
    const diff = await diffStat(repo, plan.baseCommit, refAt);
    ctx.emit({
      type: 'run.warning',
      candidate: candidate.id,
      message: `${mismatch}: the event log does not match git, so it is scored again at ${refAt.slice(0, 10)} (its kept ref)`,
    });
    ctx.emit({ type: 'candidate.committed', candidate: candidate.id, iteration: c.iteration, commit: refAt, changedFiles: 0 });
    ctx.emit(reRecorded(c, { message: `re-recorded on resume from its kept ref: ${mismatch}`, commit: refAt, diff: diffSummary(diff), costUsd: 0 }));
    rescore.add(candidate.id);
  }
  if (unverifiable.length > 0) {
    ctx.emit({
      type: 'run.warning',
      message: `${unverifiable.join(', ')} finished before the interruption; ${plan.sandbox.enabled ? 'with `[sandbox] checks = false` the code a check ran' : 'without the sandbox an agent'} could have written their scores into the run folder, so they are scored again`,
    });
  }
  return rescore;
}

/** Why the recorded commit's tree is not what the record says was scored, or undefined when it is. */
async function scoredTreeMismatch(repo: string, c: CandidateState): Promise<string | undefined> {
  const commit = c.commit as string;
  if (c.finalScored) return undefined; // the final scoring scored exactly `commit`
  const scored = [...c.iterations].reverse().find((it) => it.score !== undefined && it.commit !== undefined);
  if (!scored?.commit) return `the record has no scored iteration for its commit ${commit.slice(0, 10)}`;
  if (!(await commitExists(repo, scored.commit))) return `the commit its score was recorded for (${scored.commit.slice(0, 10)}) does not exist`;
  const [tree, scoredTree] = await Promise.all([treeOf(repo, commit), treeOf(repo, scored.commit)]);
  return tree === scoredTree ? undefined : `its commit ${commit.slice(0, 10)} is not the tree its score was recorded for (${scored.commit.slice(0, 10)})`;
}
