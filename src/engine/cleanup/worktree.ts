/**
 * One candidate's worktree of a dead run: its work saved under the candidate's kept ref, then the
 * worktree removed. It never loses work: a worktree whose work cannot be committed (a nested
 * repository, edits inside a submodule, a link git cannot repair, git processes of the dead run
 * still in it) is kept, with where and why. A worktree whose setup never completed had no agent in
 * it and is removed as it is.
 */
import { removeLeftHiddenFiles } from '../../checks/hidden-files.js';
import { existsSync } from 'node:fs';
import { readSetupPaths } from '../record/run-folder.js';
import { isAncestor, updateRef } from '../../git/history/refs.js';
import { hasUncommittedChanges, resolveCommit } from '../../git/running/repo.js';
import { pruneWorktrees, removeWorktree } from '../../git/worktrees/worktree.js';
import { discardWorktree } from '../../git/worktrees/worktree-admin.js';
import { repairWorktreeLinkDetailed } from '../../git/worktrees/worktree-link.js';
import { clearStaleCandidateLocks } from '../../git/worktrees/stale-locks.js';
import { saveWorktreeWork } from '../../git/history/save-work.js';
import { changedSubmodules, submoduleWorkSaid } from '../../git/worktrees/submodule-work.js';
import { isCowWorktree } from '../workspace/cow-layout.js';
import type { CandidateState } from '../record/run-state.js';
import { printableLines } from '../../printable.js';
import type { CleanContext } from './context.js';
import { changesFolder, mountForClean, removeForClean } from './cow.js';

export interface CleanWorktreeRequest {
  readonly id: string;
  readonly candidate: CandidateState;
  readonly folder: string;
  /** The mark that the candidate's setup completed (and the list of its setup files). */
  readonly setupFile: string;
  /** The run's base commit: a copy-on-write worktree's base checkout is made again at it. */
  readonly baseCommit: string;
  /** git processes of the dead run still working in the folder after the wait for them to end (waitForGitToLeaveEach). */
  readonly gitStillIn: readonly number[];
}

/** What a worktree's cleaning came to: `kept` when its work could not be saved (the user was told where and why). */
export type WorktreeCleaned = 'removed' | 'kept';

/**
 * One worktree of a dead run: its work saved under the kept ref, then the worktree removed. A
 * worktree whose setup never completed had no agent in it: removed as it is. `kept`: the work could
 * not be saved, so the worktree stays and the user was told where and why.
 */
export async function cleanWorktree(context: CleanContext, request: CleanWorktreeRequest): Promise<WorktreeCleaned> {
  const { repoRoot, dryRun, say } = context;
  const { id, candidate, folder } = request;
  const setupCompleted = existsSync(request.setupFile);
  const layered = isCowWorktree(folder);
  // A folder the user deleted (after taking what they needed, as a worktree kept for the work in its
  // submodules says to): nothing is left there to save, and git only has to forget it.
  if (!layered && !existsSync(folder)) {
    say(`forget worktree ${folder}: its folder is gone`);
    if (!dryRun) await pruneWorktrees(repoRoot);
    return 'removed';
  }
  if (layered && context.cow.kind === 'unavailable') {
    context.problem(
      `keep worktree ${folder}: it is a copy-on-write worktree, which cannot be mounted here (${context.cow.why}); ${id}'s changes are in ${changesFolder(folder)}`,
    );
    return 'kept';
  }
  if (dryRun) return sayWhatWouldBeDone(context, request, { layered, setupCompleted });
  const keepIt = (why: string): 'kept' => {
    const where = layered ? `${id}'s changes over the base commit are in ${changesFolder(folder)}` : `${id}'s files are there as its agent left them`;
    context.problem(`keep worktree ${folder}: ${printableLines(why)}; ${where}`);
    return 'kept';
  };
  if (request.gitStillIn.length > 0)
    return keepIt(`git processes ${request.gitStillIn.join(', ')} are still working in it; let them end or stop them, then clean again`);
  if (layered) {
    const mounted = await mountForClean(repoRoot, folder, candidate.branch, request.baseCommit);
    if (!mounted.ok) return keepIt(mounted.error);
  }
  const remove = async (): Promise<void> => {
    const removed = layered ? await removeForClean(repoRoot, folder) : await removeWorktree(repoRoot, folder, { force: true });
    if (!removed.ok) context.problem(printableLines(removed.error));
  };
  if (!setupCompleted) {
    say(`remove ${folder}: ${id}'s setup never completed, so no agent worked in it`);
    if (layered) await remove();
    else await discardWorktree(repoRoot, folder);
    return 'removed';
  }
  const whyKeep = await saveWork(context, request);
  if (whyKeep !== undefined) return keepIt(whyKeep);
  say(`remove worktree ${folder}`);
  await remove();
  return 'removed';
}

/** A dry run's account of one worktree: what would be saved and removed, or why it would be kept. */
async function sayWhatWouldBeDone(
  context: CleanContext,
  request: CleanWorktreeRequest,
  seen: { layered: boolean; setupCompleted: boolean },
): Promise<WorktreeCleaned> {
  const { say } = context;
  const { id, candidate, folder } = request;
  if (seen.layered) {
    say(
      `${seen.setupCompleted ? `save ${id}'s uncommitted changes (if any) at ${candidate.ref}, then ` : ''}remove copy-on-write worktree ${folder} and its layer`,
    );
    return 'removed';
  }
  if (!seen.setupCompleted) say(`remove ${folder}: ${id}'s setup never completed, so no agent worked in it`);
  else {
    if (await hasUncommittedChanges(folder)) say(`commit ${id}'s uncommitted changes and keep them at ${candidate.ref}`);
    const inSubmodules = await changedSubmodules(folder).catch(() => []);
    if (inSubmodules.length > 0) {
      say(`keep worktree ${folder}: ${submoduleWork(inSubmodules, folder)}`);
      return 'kept';
    }
    say(`remove worktree ${folder}`);
  }
  return 'removed';
}

/**
 * Saves the work left in a worktree whose setup completed (its stale locks cleared, its `.git`
 * link repaired first) under the candidate's kept ref. Why the worktree must stay, if its work
 * could not all be saved; undefined when it can go.
 */
async function saveWork(context: CleanContext, request: CleanWorktreeRequest): Promise<string | undefined> {
  const { repoRoot, say } = context;
  const { id, candidate, folder } = request;
  // The run is dead (checked above): whatever git locks it left are stale (see src/git/worktrees/stale-locks.ts).
  const cleared = await clearStaleCandidateLocks(repoRoot, { worktree: folder, branch: candidate.branch, keptRef: candidate.ref });
  if (cleared.length > 0) say(`remove ${id}'s git locks left by the dead run: ${cleared.join(', ')}`);
  const link = await repairWorktreeLinkDetailed(repoRoot, folder, candidate.branch);
  if (!link.ok) return link.error;
  if (link.value.status === 'repaired') {
    const aside = link.value.movedAside ? `; its agent's own .git folder is at ${link.value.movedAside}` : '';
    say(`repair ${id}'s worktree (${link.value.problem ?? 'its .git link was broken'})${aside}`);
  }
  // A hidden check's files, when the run was killed while it ran: never saved as the candidate's work.
  const hidden = await removeLeftHiddenFiles(folder);
  if (hidden !== undefined) say(`remove the hidden check's files the dead run left in ${id}'s worktree (${hidden})`);
  const saved = await saveWorktreeWork(folder, {
    message: `bestof: ${id} work left in the worktree (saved by bestof clean)`,
    excludePaths: readSetupPaths(request.setupFile),
  });
  if (!saved.ok) return `its uncommitted work could not be saved (${saved.error})`;
  if (saved.value.commit) {
    say(`commit ${id}'s uncommitted changes and keep them at ${candidate.ref}`);
    await updateRef(repoRoot, candidate.ref, saved.value.commit);
  } else if (saved.value.head) {
    // Keep the worktree's last commit even if the run died before recording it.
    const kept = await resolveCommit(repoRoot, candidate.ref);
    if (!kept || !(await isAncestor(repoRoot, saved.value.head, kept))) await updateRef(repoRoot, candidate.ref, saved.value.head);
  }
  // A nested repository or a link out: no commit can hold it, and removing the worktree would lose it.
  if (saved.value.notHeld.length > 0)
    return `it holds what no commit can hold: ${saved.value.notHeld.join(', ')}; copy what you need, then remove it from the worktree`;
  // Edits or commits inside a submodule are in no commit of bestof's (it commits nothing inside
  // submodules), and a commit made there lives in the submodule's git dir, under the worktree's.
  const inSubmodules = await changedSubmodules(folder).catch(() => []);
  if (inSubmodules.length > 0) return submoduleWork(inSubmodules, folder);
  return undefined;
}

/** Why a worktree stays for its submodules, and what the user does about it. */
function submoduleWork(submodules: readonly string[], folder: string): string {
  return `${submoduleWorkSaid(submodules)}; copy what you need, then delete the folder (\`rm -rf ${folder}\`) and run \`bestof clean\` again`;
}
