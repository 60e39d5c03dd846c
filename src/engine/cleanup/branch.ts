/**
 * A candidate's branch after a run: deleted only once its commit is kept under refs/bestof (its
 * kept ref, or bestof's revert commit at refs/bestof/<run>/<candidate>/reverted) or merged into
 * another branch. The winner's branch stays unless it is merged or `--all` is given.
 */
import { branchesContaining, deleteBranch, isAncestor, updateRef } from '../../git/history/refs.js';
import { resolveCommit } from '../../git/running/repo.js';
import { revertedRef } from '../merge/merge-policy.js';
import type { CandidateState } from '../record/run-state.js';
import { printableLines } from '../../printable.js';
import type { CleanContext } from './context.js';

/**
 * A candidate's branch, deleted when its commit is kept under refs/bestof (its kept ref or the
 * revert commit's ref: a kept ref still missing is made) or merged into another branch; a winner
 * not merged yet stays without `--all`. Whether it was (or, on a dry run, would be) deleted.
 */
export async function cleanBranch(
  context: CleanContext,
  of: { id: string; candidate: CandidateState; runId: string; isWinner: boolean; baseCommit: string },
): Promise<boolean> {
  const { repoRoot, dryRun, say, note } = context;
  const { id, candidate } = of;
  const tip = await resolveCommit(repoRoot, `refs/heads/${candidate.branch}`);
  if (!tip) return false;
  const keptAt = await resolveCommit(repoRoot, candidate.ref);
  const revertedAt = await resolveCommit(repoRoot, revertedRef(candidate.ref));
  const kept =
    (keptAt !== undefined && (await isAncestor(repoRoot, tip, keptAt))) || (revertedAt !== undefined && (await isAncestor(repoRoot, tip, revertedAt)));
  const merged = await onAnotherBranch(repoRoot, tip, candidate.branch);
  if (of.isWinner && !merged && !context.all) {
    note(`keep ${candidate.branch}: the winner of ${of.runId}, not merged yet (merge it, or clean with --all)`);
    return false;
  }
  if (!kept && !merged) {
    if (dryRun) {
      say(`keep ${id}'s last commit at ${candidate.ref}`);
    } else if (!keptAt) {
      await updateRef(repoRoot, candidate.ref, tip);
    } else {
      note(`keep ${candidate.branch}: its commit ${tip.slice(0, 10)} is not under ${candidate.ref} nor merged`);
      return false;
    }
  }
  // A branch still at the run's base holds no work of the candidate's: "merged" would be untrue.
  const label = tip === of.baseCommit ? 'no commit of its own' : merged ? 'merged' : `kept at ${candidate.ref}`;
  say(`delete branch ${candidate.branch} (${label})`);
  if (!dryRun) {
    const deleted = await deleteBranch(repoRoot, candidate.branch, { force: true });
    if (!deleted.ok) context.problem(printableLines(deleted.error));
  }
  return true;
}

/** Is the commit on a local branch other than `branch` itself? */
async function onAnotherBranch(repoRoot: string, sha: string, branch: string): Promise<boolean> {
  return (await branchesContaining(repoRoot, sha)).some((name) => name !== branch);
}
