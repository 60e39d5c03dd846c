/**
 * Merge: what happens to the winner, as `[select] merge` says (src/engine/merge/merge-policy.ts).
 * Nothing to do without a winner. What is merged is the winner's scored commit by sha; the
 * protected paths it changed (read from git again here, not from the record) are reverted in
 * a commit of bestof's first.
 *
 * Never twice: merge.started is recorded (with the target branch's tip) before the user's branch
 * is touched, and merge.finished after. A resumed run whose record has merge.finished does
 * nothing here; one whose record has only merge.started asks git whether the merge happened
 * (src/git/history/merge.ts findEarlierMerge) and records it rather than merging again; when it did not,
 * what it left half-made in the checkout is undone first (undoInterruptedMerge), then it is made.
 *
 * When the target branch moved past base meanwhile, the merge's result is scored first, in a
 * worktree of bestof's own, and the branch moves only if it keeps every check the winner passed
 * (../../merge/merge-check.ts).
 */
import { keptAsInBase } from '../../../checks/frozen.js';
import { findEarlierMerge, undoInterruptedMerge } from '../../../git/history/merge.js';
import { indexMatchesCommit, resolveCommit } from '../../../git/running/repo.js';
import { swapRef, updateOwnRef } from '../../../git/history/refs.js';
import { checkMergeOnTip } from '../../merge/merge-check.js';
import { applyMergePolicy, mergeTitle, revertedRef } from '../../merge/merge-policy.js';
import type { CandidatePlan } from '../../plan/plan.js';
import type { RunContext } from '../run-context.js';
import { lostCandidates } from '../../record/run-state.js';
import { protectedChanges } from './selection.js';
import { describeAutorun } from '../../select/autorun-files.js';

const MERGING_MODES = new Set(['merge', 'squash', 'ff']);

export async function merge(ctx: RunContext): Promise<void> {
  const { plan } = ctx;
  const state = ctx.state();
  const winner = state.winner;
  const candidate = plan.candidates.find((c) => c.id === winner);
  const scored = winner ? state.candidates[winner]?.commit : undefined;
  if (!winner || !candidate || !scored) return;
  if (state.merge?.candidate === winner) return; // done before the interruption: the record says how
  // A candidate lost to git or bestof (not beaten) makes the comparison incomplete: nothing is merged,
  // and the closing line says so (./finish.ts).
  if (lostCandidates(state).length > 0) return;
  const mode = plan.spec.select.merge;
  if (await recordEarlierMerge(ctx, candidate, scored)) return;
  await undoHalfMadeMerge(ctx, candidate, scored);

  const into = MERGING_MODES.has(mode) ? plan.into : undefined;
  if (into) await putBackMovedTarget(ctx, into);
  const intoBefore = into ? await resolveCommit(plan.repoRoot, `refs/heads/${into}`) : undefined;
  ctx.emit({ type: 'merge.started', candidate: winner, mode, commit: scored, ...(into ? { into } : {}), ...(intoBefore ? { intoBefore } : {}) });
  const revert = await protectedChanges(plan.repoRoot, {
    base: plan.baseCommit,
    commit: scored,
    frozen: keptAsInBase(plan.spec.checks),
    editable: plan.spec.checks.editable,
    runner: plan.runner,
  });
  const merged = await applyMergePolicy({
    repoRoot: plan.repoRoot,
    mode,
    runId: plan.runId,
    candidate: winner,
    label: candidate.label,
    branch: candidate.branch,
    commit: scored,
    baseCommit: plan.baseCommit,
    keptRef: candidate.ref,
    revert,
    into: plan.into,
    ...(into
      ? {
          checkMerge: (toMerge: string) =>
            checkMergeOnTip(ctx, { winner: candidate, toMerge, into, byHand: toMerge === scored ? candidate.branch : revertedRef(candidate.ref) }),
        }
      : {}),
  });
  // Files that run code in the user's checkout (../../select/autorun-files.ts) are named where the merge is said, not only in the ranking.
  const autorun = state.ranking.find((r) => r.candidate === winner)?.autorun;
  ctx.emit({
    type: 'merge.finished',
    candidate: winner,
    mode,
    branch: candidate.branch,
    ok: merged.ok,
    ...(merged.commit ? { commit: merged.commit } : {}),
    message: merged.ok && autorun ? `${merged.message}; it ${describeAutorun(autorun)}` : merged.message,
    ...(merged.onto ? { onto: merged.onto } : {}),
  });
}

/**
 * The target branch moved during the run while the user's checkout (where it is checked out) did
 * not: its index still holds the tree of the tip the run started from. A commit made in the
 * checkout moves both; a branch moved from elsewhere (`git update-ref refs/heads/main X` by an
 * agent without the sandbox) moves only the ref, and merging there would build on X and show the
 * user X's changes, reversed, as "uncommitted". The branch goes back to where it was (compare and
 * swap, so a move made meanwhile is not undone), the moved tip is kept at
 * `refs/bestof/<run>/moved-into`, and a warning says what happened. Without the sandbox bestof
 * cannot tell which agent did it.
 */
async function putBackMovedTarget(ctx: RunContext, into: string): Promise<void> {
  const { plan } = ctx;
  const startedAt = ctx.state().intoCommit;
  if (!startedAt) return;
  const ref = `refs/heads/${into}`;
  const now = await resolveCommit(plan.repoRoot, ref);
  if (now === undefined || now === startedAt) return;
  if (!(await indexMatchesCommit(plan.repoRoot, startedAt)) || (await indexMatchesCommit(plan.repoRoot, now))) return;
  const keptAt = `refs/bestof/${plan.runId}/moved-into`;
  await updateOwnRef(plan.repoRoot, keptAt, now);
  const back = await swapRef(plan.repoRoot, ref, startedAt, now);
  ctx.emit({
    type: 'run.warning',
    message: back.ok
      ? `${into} moved during the run from ${startedAt.slice(0, 10)} to ${now.slice(0, 10)}, but your checkout did not (its index is still at ${startedAt.slice(0, 10)}): something outside it moved the branch, an agent without the sandbox most likely; bestof put ${into} back at ${startedAt.slice(0, 10)} and kept the moved tip at ${keptAt}`
      : `${into} moved during the run to ${now.slice(0, 10)} while your checkout stayed at ${startedAt.slice(0, 10)}, and bestof could not put it back: ${back.error}`,
  });
}

/**
 * A merge that began before the interruption and did not reach the target branch (no earlier merge
 * found): what it left in the user's checkout (a half-made merge or squash) is undone, with a
 * warning, so that it is made again below instead of being refused as uncommitted changes.
 */
async function undoHalfMadeMerge(ctx: RunContext, candidate: CandidatePlan, scored: string): Promise<void> {
  const started = ctx.state().mergeStarted;
  if (!started || started.candidate !== candidate.id || !started.into) return;
  const undone = await undoInterruptedMerge(ctx.plan.repoRoot, { commit: scored, into: started.into });
  if (undone.ok && undone.value === 'none') return;
  ctx.emit({
    type: 'run.warning',
    message: undone.ok
      ? `the merge of ${candidate.branch} into ${started.into} was cut off half-way when the run was interrupted (your checkout held it, ${started.into} had not moved); bestof undid it with \`git reset --merge\` and merges again`
      : undone.error,
  });
}

/** A merge that began before the interruption and reached the target branch: recorded as done (true), never made again. */
async function recordEarlierMerge(ctx: RunContext, candidate: CandidatePlan, scored: string): Promise<boolean> {
  const started = ctx.state().mergeStarted;
  if (!started || started.candidate !== candidate.id || !started.into || !started.intoBefore) return false;
  const { plan } = ctx;
  const subject = mergeTitle({ candidate: candidate.id, label: candidate.label, runId: plan.runId });
  // A revert commit of bestof's may have been merged instead of the scored commit: it builds on it, so
  // a merge or fast-forward of it contains `scored` too.
  const commit = await findEarlierMerge(plan.repoRoot, { into: started.into, since: started.intoBefore, commit: scored, subject });
  if (!commit) return false;
  ctx.emit({
    type: 'merge.finished',
    candidate: candidate.id,
    mode: started.mode,
    branch: candidate.branch,
    ok: true,
    commit,
    message: `merged ${candidate.branch} (${scored.slice(0, 10)}) into ${started.into} (${started.mode}) as ${commit.slice(0, 10)} before the run was interrupted; not merged again`,
  });
  return true;
}
