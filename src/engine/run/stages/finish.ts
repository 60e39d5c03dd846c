/**
 * Finish: worktrees removed (unless `[git] keep_worktrees`; every candidate's work is
 * committed and kept under refs/bestof/<run>/ by now; what a worktree still holds beyond its
 * last commit is saved first, and a worktree whose work cannot be saved is kept, as is one whose
 * submodules hold its agent's edits), then the one
 * run.finished event with the run's status, exit code and closing line, then the liveness
 * mark removed. The listeners write state.json and the reports when they see run.finished.
 */
import { pruneWorktrees, removeWorktree } from '../../../git/worktrees/worktree.js';
import type { RunStatus } from '../../record/events.js';
import { EXIT_CODES } from '../../exit-codes.js';
import type { RunContext } from '../run-context.js';
import { markRunFinished } from '../../record/run-lock.js';
import { removeAgentHomes } from '../../sandbox/agent-sandbox.js';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { detachCowBase, materializeCowWorktree, removeCowBase, removeCowWorktree } from '../../../git/worktrees/cow-worktree.js';
import { removeInBackground } from '../../../process/background-remove.js';
import { cowBaseDir, cowDir, cowLayerDir, cowTrashRoot, isCowWorktree } from '../../workspace/cow-layout.js';
import { saveLeftoverCommit, unsavedPaths, workNoCommitHolds } from '../../../git/history/leftover.js';
import { repairWorktreeLink } from '../../../git/worktrees/worktree-link.js';
import { notAFolder } from '../../../git/guards/guard.js';
import { changedSubmodules, submoduleWorkSaid } from '../../../git/worktrees/submodule-work.js';
import { isAncestor, updateRef } from '../../../git/history/refs.js';
import { resolveCommit } from '../../../git/running/repo.js';
import { besideKeptRef } from '../../workspace/candidate-refs.js';
import type { CandidatePlan } from '../../plan/plan.js';
import { lostCandidates, type RunState } from '../../record/run-state.js';
import { readSetupPaths, setupPathsFile } from '../../record/run-folder.js';
import { ok } from '../../../result.js';
import { removeTree } from '../../../owned-tree.js';
import { asideRoot } from '../../../checks/scoring-tree.js';

export async function finish(ctx: RunContext): Promise<void> {
  const { plan } = ctx;
  const kept = plan.spec.git.keep_worktrees ? await keepCowWorktrees(ctx) : await removeWorktrees(ctx);
  await removeSharedBase(ctx);
  await removeAgentHomes(plan); // the agents' HOMEs hold copies of logins: never kept
  // The run's folder in the worktrees folder, once empty. The deletions of the worktrees' files
  // try too, as each ends (deleteAfterTheRun): whichever comes last, this or they, finds it empty.
  // First the folder the candidates' leftovers waited in during their checks (empty by now, unless a put-back failed).
  for (const aside of new Set(plan.candidates.map((candidate) => asideRoot(candidate.worktree)))) await rmdir(aside).catch(() => undefined);
  for (const folder of new Set(plan.candidates.map((candidate) => dirname(candidate.worktree)))) await rmdir(folder).catch(() => undefined);
  const { status, exitCode, message } = closing(ctx, kept);
  ctx.emit({ type: 'run.finished', status, exitCode, winner: ctx.state().winner, durationMs: Math.round(performance.now() - ctx.startedAt), message });
  markRunFinished(plan.runDir);
}

/** The run's status, exit code and closing line, from what the stages before did. */
function closing(ctx: RunContext, kept: KeptWorktrees): { status: RunStatus; exitCode: number; message: string } {
  const { runId } = ctx.plan;
  const state = ctx.state();
  const merged = state.merge;
  if (state.reference?.error !== undefined) {
    // The spec's check, not a candidate's work: bad input, said with the fix, as a wrong spec is.
    return {
      status: 'failed',
      exitCode: EXIT_CODES.badInput,
      message: `stopped: ${state.reference.error}; what each candidate did before the stop is kept under refs/bestof/${runId}/`,
    };
  }
  const lost = lostCandidates(state);
  if (lost.length > 0 && !ctx.signal.aborted) {
    const would = state.winner
      ? `; ${state.winner} ranks first among the others, and its work is on branch ${state.candidates[state.winner]?.branch ?? ''}`
      : '';
    return {
      status: 'failed',
      exitCode: EXIT_CODES.incomplete,
      message: `incomplete: ${lost.join(', ')} ${lost.length === 1 ? 'was' : 'were'} lost during setup by a failure of git or bestof (not the spec's), so the comparison is incomplete and nothing was merged${would}; run again, or see \`bestof show ${runId}\``,
    };
  }
  const unsavedNote = keptNote(kept.unsaved, (one) => `because ${one ? 'it holds' : 'they hold'} work that could not be committed`);
  // Not a failure of the run: the work is the agent's inside another repository, which bestof never commits.
  const submoduleNote = keptNote(kept.forSubmodules, (one) => `for the edits inside ${one ? 'its' : 'their'} submodules`);
  // Nor this: the commits leave such things out by design (a nested repository, a link out).
  const notHeldNote = keptNote(kept.notHeld, (one) => `because ${one ? 'it holds' : 'they hold'} what no commit can hold (see the warnings)`);
  const result = closingOf(ctx, state, merged);
  if (unsavedNote === '') return { ...result, message: `${result.message}${submoduleNote}${notHeldNote}` };
  return {
    status: result.status,
    exitCode: result.exitCode === EXIT_CODES.cancelled ? result.exitCode : EXIT_CODES.incomplete,
    message: `${result.message}${unsavedNote}${submoduleNote}${notHeldNote}`,
  };
}

/** `; the worktree of c1 was kept <why> (see the warnings)`, for the closing line; '' for none. */
function keptNote(ids: readonly string[], why: (one: boolean) => string): string {
  if (ids.length === 0) return '';
  const one = ids.length === 1;
  return `; the worktree${one ? '' : 's'} of ${ids.join(', ')} ${one ? 'was' : 'were'} kept ${why(one)} (see the warnings)`;
}

function closingOf(ctx: RunContext, state: RunState, merged: RunState['merge']): { status: RunStatus; exitCode: number; message: string } {
  const { runId } = ctx.plan;
  if (merged) {
    const label = state.candidates[merged.candidate]?.label ?? '';
    return merged.ok
      ? { status: 'winner', exitCode: EXIT_CODES.winner, message: `${merged.candidate} (${label}) won; ${merged.message}` }
      : { status: 'winner', exitCode: EXIT_CODES.mergeFailed, message: `${merged.candidate} (${label}) won, but the merge did not happen: ${merged.message}` };
  }
  const stopped = ctx.stoppedBecause();
  if (stopped !== undefined) {
    // Not the user's cancel: the run could not go on. Cancelled, so that it can be resumed.
    return {
      status: 'cancelled',
      exitCode: EXIT_CODES.incomplete,
      message: `incomplete: stopped because ${stopped}; what each candidate did is committed and kept under refs/bestof/${runId}/ where git could still write; make room, then \`bestof resume ${runId}\` goes on`,
    };
  }
  if (ctx.signal.aborted) {
    return {
      status: 'cancelled',
      exitCode: EXIT_CODES.cancelled,
      message: `run cancelled; what each candidate did is committed and kept under refs/bestof/${runId}/; continue it with \`bestof resume ${runId}\`, or see \`bestof show ${runId}\``,
    };
  }
  return {
    status: 'no_winner',
    exitCode: EXIT_CODES.noWinner,
    message: `no candidate can win (${whyNone(state)}); what each one committed is kept under refs/bestof/${runId}/; \`bestof show ${runId}\` says why each one failed`,
  };
}

/**
 * Why no candidate can win, in a few words per candidate, from the ranking's reasons ("c1 passed
 * no check, c2 changed frozen paths"): not every run without a winner is one where nothing passed
 * (a candidate that passed every check may have changed a frozen path, or made no changes).
 */
function whyNone(state: RunState): string {
  const ranked = new Map(state.ranking.map((entry) => [entry.candidate, entry]));
  const reasons = state.order.flatMap((id) => {
    const entry = ranked.get(id);
    return entry === undefined || entry.eligible ? [] : [`${id} ${shortReason(entry.reason ?? 'cannot win')}`];
  });
  return reasons.length > 0 ? reasons.join(', ') : 'none was ranked';
}

/** A ranking reason without its advice in brackets or its list of paths: the closing line is one line. */
function shortReason(reason: string): string {
  return reason.replace(/ \(.*\)$/, '').replace(/^(changed frozen paths): .*$/, '$1');
}

/** Why a worktree outlives the run: work no commit could take, edits inside submodules, or what no commit can hold (a nested repository, a link out). */
type KeptWhy = 'unsaved' | 'submodules' | 'not-held';

/** Candidates whose worktree outlives the run, by why. */
interface KeptWorktrees {
  readonly unsaved: readonly string[];
  readonly forSubmodules: readonly string[];
  readonly notHeld: readonly string[];
}

/**
 * Removes every candidate's worktree, never one that holds work no commit has: such work (an
 * agent's last commit failed, or something wrote after it) is first saved in a commit of its own
 * at refs/bestof/<run>/<candidate>/leftover; when even that fails, the worktree stays, and the run
 * says where and ends `incomplete`. A worktree whose submodules hold the agent's edits or commits
 * stays too (bestof commits nothing inside a submodule, and the submodule's git dir, with any
 * commit made in it, lies under the worktree's), with a warning that names them; so does one that
 * holds a nested repository or a link out (left out of every commit by design); the run's outcome
 * is unchanged by either. Returns the worktrees kept.
 */
async function removeWorktrees(ctx: RunContext): Promise<KeptWorktrees> {
  const { plan } = ctx;
  // Every worktree at once: each one's check and save touch only it, and the removal itself takes the
  // repository's worktree lock only to unlink it (its files are deleted outside the lock).
  const kept = await Promise.all(
    plan.candidates.map(async (candidate): Promise<{ readonly id: string; readonly why: KeptWhy } | undefined> => {
      const reason = ctx.state().candidates[candidate.id]?.reason;
      if (reason !== undefined && isUnscoredReason(reason)) await keepUnscoredCommit(ctx, candidate, reason);
      // Or a link found there now (put there before a kill -9 that came before bestof could see it).
      const standing = reason === 'worktree_replaced' ? undefined : await notAFolder(candidate.worktree);
      if (reason === 'worktree_replaced' || standing !== undefined) {
        // What stands at the path now is not bestof's (a link to a folder of the user's, a folder the
        // agent moved there): neither saved from, nor repaired, nor deleted. git's record of the
        // worktree goes with the prune below only if nothing that looks like a `.git` stands there.
        const what = standing === undefined ? 'not the folder bestof made: see above' : `${standing}, not the folder bestof made`;
        ctx.emit({
          type: 'run.warning',
          candidate: candidate.id,
          message: `${candidate.worktree} is left as it is (${what}); look at it, then delete it yourself`,
        });
        return undefined;
      }
      if (existsSync(candidate.worktree)) {
        const why = !(await saveLeftover(ctx, candidate))
          ? 'unsaved'
          : (await keptForSubmodules(ctx, candidate))
            ? 'submodules'
            : (await keptForEscapes(ctx, candidate))
              ? 'not-held'
              : undefined;
        if (why) {
          await materialize(ctx, candidate);
          return { id: candidate.id, why };
        }
      }
      const removed =
        plan.cow && isCowWorktree(candidate.worktree)
          ? await removeCowWorktree(plan.repoRoot, { path: candidate.worktree, layer: cowLayerDir(candidate.worktree), holder: plan.cow.mounts })
          : await removeWorktree(plan.repoRoot, candidate.worktree, { force: true, deleteFiles: deleteAfterTheRun });
      if (!removed.ok) ctx.emit({ type: 'run.warning', candidate: candidate.id, message: `${removed.error}; \`bestof clean\` will retry` });
      return undefined;
    }),
  );
  // Housekeeping (git forgets worktrees whose folders are gone): a git that cannot do it now (a full
  // disk, where its lock file cannot be made) leaves it to the next git command; it never ends the run.
  await pruneWorktrees(plan.repoRoot).catch((error: unknown) => {
    ctx.emit({
      type: 'run.warning',
      message: `git could not prune its worktree records (${(error as Error).message}); \`git worktree prune\` or \`bestof clean\` does it later`,
    });
  });
  const ids = (why: KeptWhy): string[] => kept.flatMap((k) => (k?.why === why ? [k.id] : []));
  return { unsaved: ids('unsaved'), forSubmodules: ids('submodules'), notHeld: ids('not-held') };
}

/**
 * True (and a warning) when the candidate's worktree holds what no commit can hold: a nested git
 * repository or a link out of the worktree (../../../git/guards/escapes.ts), which the commits leave out by
 * design, as they leave out a submodule's edits. Its files would go with the worktree; it stays, and
 * the run's outcome is unchanged (the candidate's work was scored without them).
 */
async function keptForEscapes(ctx: RunContext, candidate: CandidatePlan): Promise<boolean> {
  const { plan } = ctx;
  const setupPaths = ctx.ends.of(candidate.id)?.setupPaths ?? readSetupPaths(setupPathsFile(plan.runDir, candidate.id));
  const escaping = await workNoCommitHolds(candidate.worktree, { setupPaths, secrets: ctx.secrets, maxFileSizeBytes: plan.spec.git.max_file_size }).catch(
    () => [],
  );
  if (escaping.length === 0) return false;
  ctx.emit({
    type: 'run.warning',
    candidate: candidate.id,
    message: `its worktree ${candidate.worktree} is kept: it holds what no commit can hold (${escaping.slice(0, 3).join(', ')}${escaping.length > 3 ? ', ...' : ''}); copy what you need from there, then delete the folder and run \`bestof clean ${plan.runId}\``,
  });
  return true;
}

/**
 * True (and a warning) when submodules of the candidate's worktree hold its agent's edits or
 * commits (../../../git/worktrees/submodule-work.ts). git failing to tell counts as none: a worktree git cannot
 * read has been judged by saveLeftover already.
 */
async function keptForSubmodules(ctx: RunContext, candidate: CandidatePlan): Promise<boolean> {
  const submodules = await changedSubmodules(candidate.worktree).catch(() => []);
  if (submodules.length === 0) return false;
  ctx.emit({
    type: 'run.warning',
    candidate: candidate.id,
    message: `its worktree ${candidate.worktree} is kept: ${submoduleWorkSaid(submodules)}; copy what you need from there, then delete the folder and run \`bestof clean ${ctx.plan.runId}\``,
  });
  return true;
}

/**
 * A removed worktree's files (renamed aside by removeWorktree, its admin entry gone: nothing of git's
 * points at them any more, and its work is committed or saved by now), deleted by a process of their
 * own while bestof exits: at 50,000 files or 64 candidates, deleting them is most of a run's last
 * minute. Deleted here when no such process can be started; `bestof clean` deletes what an
 * interrupted one left (`<worktree>.removing`). Then the run's folder of worktrees goes too, once
 * empty: whichever ends last, a deletion or finish itself, finds it so (one that holds a kept
 * worktree stays).
 */
async function deleteAfterTheRun(trash: string): Promise<void> {
  const runFolder = dirname(trash);
  if (removeInBackground(trash, runFolder)) return;
  await removeTree(trash);
  await rmdir(runFolder).catch(() => undefined);
}

/**
 * `keep_worktrees` with copy-on-write worktrees: each one becomes a plain folder (seen from outside
 * bestof's mount namespace, a mount point is empty). Returns none: every candidate's work is
 * committed by now, as for plain kept worktrees.
 */
async function keepCowWorktrees(ctx: RunContext): Promise<KeptWorktrees> {
  await Promise.all(ctx.plan.candidates.map((candidate) => materialize(ctx, candidate)));
  return { unsaved: [], forSubmodules: [], notHeld: [] };
}

/** A copy-on-write worktree that must outlive the run, made a plain folder; a plain one is left alone. */
async function materialize(ctx: RunContext, candidate: CandidatePlan): Promise<void> {
  const { plan } = ctx;
  if (!plan.cow || !isCowWorktree(candidate.worktree)) return;
  const layer = cowLayerDir(candidate.worktree);
  const made = await materializeCowWorktree({ path: candidate.worktree, layer, holder: plan.cow.mounts });
  if (!made.ok) {
    ctx.emit({
      type: 'run.warning',
      candidate: candidate.id,
      message: `${made.error}; its files as the agent left them (changes only, over ${plan.baseCommit.slice(0, 12)}) are in ${join(layer, 'upper')}`,
    });
  }
}

/**
 * The shared base checkout of copy-on-write worktrees, once no layer lies on it any more: taken out
 * of the repository and renamed into the worktrees root's trash at once, its files deleted by a
 * process of its own that outlives the run (deleting 50,000 files takes seconds of disk work that
 * nobody needs to wait for). Where that cannot be done, deleted here as before.
 */
async function removeSharedBase(ctx: RunContext): Promise<void> {
  const { plan } = ctx;
  const first = plan.candidates[0];
  if (!plan.cow || !first) return;
  if (plan.candidates.some((candidate) => isCowWorktree(candidate.worktree))) return; // a layer kept for its work (warned above)
  const trashRoot = cowTrashRoot(first.worktree);
  const trash = join(trashRoot, `${plan.runId}-base-${randomBytes(3).toString('hex')}`);
  const moved = await detachCowBase(plan.repoRoot, cowBaseDir(first.worktree), trash).catch(() => ok(false));
  if (moved.ok && moved.value) {
    if (existsSync(trash) && !removeInBackground(trash, trashRoot))
      ctx.emit({
        type: 'run.warning',
        message: `the shared base checkout (a checkout of base, no candidate's work) was moved to ${trash} but no process could be started to delete it; \`bestof clean\` deletes it`,
      });
    await removeTree(cowDir(first.worktree));
    return;
  }
  const removed = await removeCowBase(plan.repoRoot, cowBaseDir(first.worktree));
  if (!removed.ok) ctx.emit({ type: 'run.warning', message: `${removed.error}; \`bestof clean\` will retry` });
  else await removeTree(cowDir(first.worktree));
}

/**
 * A candidate an internal error (a failure of git's or bestof's while its checks were prepared or
 * run) or a cancel stopped between its commit and the keeping of it: the commit is on its branch only, and
 * the kept ref, which every candidate's work is found under, has an older one or none. Kept at the
 * leftover ref (beside the kept one; not scored), so that `refs/bestof/<run>/<candidate>/` holds
 * everything it committed. A leftover saved after it (uncommitted work) builds on it.
 */
async function keepUnscoredCommit(ctx: RunContext, candidate: CandidatePlan, reason: UnscoredReason): Promise<void> {
  const { plan } = ctx;
  const tip = await resolveCommit(plan.repoRoot, `refs/heads/${candidate.branch}`).catch(() => undefined);
  if (tip === undefined || tip === plan.baseCommit) return;
  const keptAt = await resolveCommit(plan.repoRoot, candidate.ref).catch(() => undefined);
  if (keptAt !== undefined && (keptAt === tip || (await isAncestor(plan.repoRoot, tip, keptAt).catch(() => false)))) return;
  const ref = leftoverRef(candidate.ref);
  await updateRef(plan.repoRoot, ref, tip);
  ctx.emit({
    type: 'run.warning',
    candidate: candidate.id,
    message: `its last commit ${tip.slice(0, 10)} was never scored (${UNSCORED_BECAUSE[reason]} first); kept at ${ref}`,
  });
}

/** The ends that can come between a commit and its keeping, and how the warning says them. */
const UNSCORED_BECAUSE = {
  internal_error: 'an internal error stopped it',
  cancelled: 'the run was cancelled',
  worktree_replaced: 'its worktree folder was replaced',
} as const;
type UnscoredReason = keyof typeof UNSCORED_BECAUSE;
const isUnscoredReason = (reason: string): reason is UnscoredReason => Object.hasOwn(UNSCORED_BECAUSE, reason);

/** Where work left uncommitted in a worktree is saved: beside the candidate's kept ref. */
export function leftoverRef(keptRef: string): string {
  return besideKeptRef(keptRef, 'leftover');
}

/** True when nothing in the worktree is left unsaved (there was nothing, or it is saved now). */
async function saveLeftover(ctx: RunContext, candidate: CandidatePlan): Promise<boolean> {
  const { plan } = ctx;
  // An agent may have destroyed the worktree's `.git` link: git sees its files again once it is repaired.
  const link = await repairWorktreeLink(plan.repoRoot, candidate.worktree, candidate.branch).catch((error: Error) => ({
    ok: false as const,
    error: error.message,
  }));
  if (!link.ok) ctx.emit({ type: 'run.warning', candidate: candidate.id, message: `its worktree's git link could not be repaired: ${link.error}` });
  const setupPaths = ctx.ends.of(candidate.id)?.setupPaths ?? readSetupPaths(setupPathsFile(plan.runDir, candidate.id));
  const filter = { setupPaths, secrets: ctx.secrets, maxFileSizeBytes: plan.spec.git.max_file_size };
  const unsaved = await unsavedPaths(candidate.worktree, filter).catch(() => undefined);
  if (unsaved !== undefined && unsaved.length === 0) return true;
  const what =
    unsaved === undefined
      ? 'files git cannot read'
      : `${unsaved.length} file${unsaved.length === 1 ? '' : 's'} (${unsaved.slice(0, 3).join(', ')}${unsaved.length > 3 ? ', ...' : ''})`;
  const commit = await saveLeftoverCommit(candidate.worktree, {
    ...filter,
    message: `bestof: ${candidate.id} work left in its worktree after its last commit (saved at the end of run ${plan.runId})`,
  }).catch((error: Error) => ({ ok: false as const, error: error.message }));
  if (commit.ok) {
    const ref = leftoverRef(candidate.ref);
    await updateRef(plan.repoRoot, ref, commit.value);
    ctx.emit({ type: 'run.warning', candidate: candidate.id, message: `its worktree held ${what} that no commit had; saved at ${ref} (not scored)` });
    return true;
  }
  ctx.emit({
    type: 'run.warning',
    candidate: candidate.id,
    message: `its worktree ${candidate.worktree} holds ${what} that could not be committed (${commit.error}); the worktree is kept as it is: copy what you need, then \`bestof clean ${plan.runId}\``,
  });
  return false;
}
