/**
 * One run that is not running, cleaned: what it left running stopped, then each candidate's
 * worktree (its work saved first) and branch (once its commit is kept or merged), then the shared
 * base checkout of copy-on-write worktrees.
 *
 * A killed run leaves worse than worktrees: processes (stopped first, found by the run's key), git
 * commands still writing in a worktree (waited for), a shannon run's tmux socket, worktrees whose
 * folder an agent replaced with a link (never touched), removals cut short (their trash).
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { removeWorktreeTrash, type WorktreeInfo } from '../../git/worktrees/worktree.js';
import { waitForGitToLeaveEach } from '../../git/worktrees/worktree-users.js';
import { notAFolder } from '../../git/guards/guard.js';
import { type RunListing, setupPathsFile } from '../record/run-folder.js';
import { readRunKey, stopRunLeftovers } from '../sandbox/leftovers.js';
import { runBaseDir } from '../../providers/shannon/paths.js';
import type { CandidateState, RunState } from '../record/run-state.js';
import { isCowWorktree } from '../workspace/cow-layout.js';
import { printable, printableLines } from '../../printable.js';
import type { CleanContext } from './context.js';
import { removeRunCowBase } from './cow.js';
import { cleanBranch } from './branch.js';
import { cleanWorktree } from './worktree.js';

/** How long clean waits for git commands of a dead run to finish in a worktree. */
const LEFTOVER_GIT_WAIT_MS = 30_000;

/** How many things were cleaned, and how many worktrees were kept because their work could not be saved. */
export interface RunCleaned {
  readonly actions: number;
  readonly keptWithWork: number;
}

/**
 * One run that is not running: what it left running stopped, then each candidate's worktree (its
 * work saved first) and branch (once its commit is kept or merged), then the shared base checkout
 * of copy-on-write worktrees. `keptWithWork`: worktrees kept because their work could not be saved.
 */
export async function cleanRun(context: CleanContext, run: RunListing, state: RunState): Promise<RunCleaned> {
  const { repoRoot, dryRun, say, note } = context;
  await stopWhatTheRunLeft(context, run);
  const folders = new Map(state.order.map((id) => [id, state.candidates[id] && candidateWorktree(state.candidates[id], context.worktrees)]));
  // A git command of the dead run may still be writing in a worktree (a long checkout): each is
  // let end first, all of the run's worktrees waited for together (one settle, not one each).
  const gitStillIn = dryRun
    ? new Map<string, number[]>()
    : await waitForGitToLeaveEach(
        [...folders.values()].filter((f): f is string => f !== undefined),
        { timeoutMs: LEFTOVER_GIT_WAIT_MS },
      );
  let actions = 0;
  let keptWithWork = 0;
  for (const id of state.order) {
    const candidate = state.candidates[id];
    if (!candidate) continue;
    const folder = folders.get(id);
    if (candidate.worktree) {
      // What a removal killed midway, or a deletion after the run still going on, left: trash by then (the work was saved before the removal began).
      for (const trash of dryRun ? [] : await removeWorktreeTrash(candidate.worktree)) say(`remove ${trash} (a removed worktree's files, left being deleted)`);
    }
    // A link found where the worktree was (put there before a kill -9 that came before the run could see it).
    const standing = candidate.worktree && candidate.reason !== 'worktree_replaced' ? await notAFolder(candidate.worktree) : undefined;
    if (folder && candidate.reason === 'worktree_replaced') {
      // Not the folder bestof made (a link to a folder of the user's, one the agent moved there): never saved from, repaired or deleted.
      note(`leave ${folder}: ${id}'s agent replaced its worktree folder with it, and bestof touches nothing there (look at it, then delete it yourself)`);
    } else if (standing !== undefined) {
      note(
        `leave ${candidate.worktree}: it is ${printable(standing)}, not the worktree folder bestof made for ${id}, and bestof touches nothing there (look at it, then delete it yourself)`,
      );
    } else if (folder) {
      actions += 1;
      const setupFile = setupPathsFile(run.runDir, id);
      const done = await cleanWorktree(context, { id, candidate, folder, setupFile, baseCommit: state.baseCommit, gitStillIn: gitStillIn.get(folder) ?? [] });
      if (done === 'kept') {
        keptWithWork += 1;
        continue; // its branch stays with it
      }
    }
    if (await cleanBranch(context, { id, candidate, runId: run.runId, isWinner: id === state.winner, baseCommit: state.baseCommit })) actions += 1;
  }
  // Also when no layer is left (a run killed after removing its candidates' layers): the base alone needs no namespace.
  if (!dryRun) {
    const runWorktrees = Object.values(state.candidates).flatMap((c) => (c?.worktree ? [c.worktree] : []));
    const base = await removeRunCowBase(repoRoot, runWorktrees);
    if (!base.ok) context.problem(printableLines(base.error));
    else if (base.value) say(`remove ${run.runId}'s shared base checkout (copy-on-write worktrees)`);
  }
  return { actions, keptWithWork };
}

/** The processes and the tmux folders a killed bestof left, before anything of the run's worktrees is touched. */
async function stopWhatTheRunLeft(context: CleanContext, run: RunListing): Promise<void> {
  if (context.dryRun) return;
  // Its agents, checks or daemons may outlive a killed bestof, still writing in the worktrees.
  const runKey = readRunKey(run.runDir);
  if (runKey) {
    const stopped = await stopRunLeftovers(runKey);
    if (stopped > 0) context.say(`stop ${stopped} process${stopped === 1 ? '' : 'es'} ${run.runId} left running`);
  }
  // A shannon run's tmux socket and hook folders, under the system temp folder: left by a killed bestof.
  const shannonDir = runBaseDir(run.runDir);
  if (existsSync(shannonDir)) {
    await rm(shannonDir, { recursive: true, force: true });
    context.say(`remove ${shannonDir} (the run's tmux socket and hook folders)`);
  }
}

/**
 * The candidate's worktree folder, if anything of it is left: the folder named in the record (also
 * when git no longer lists it: a half-made one, or one whose `.git` link an agent destroyed), or
 * the worktree git lists on its branch.
 */
function candidateWorktree(candidate: CandidateState, worktrees: readonly WorktreeInfo[]): string | undefined {
  // A copy-on-write worktree's changes are in its layer even when its mount point is gone.
  if (candidate.worktree && (existsSync(candidate.worktree) || isCowWorktree(candidate.worktree))) return resolve(candidate.worktree);
  return worktrees.find((w) => w.path === candidate.worktree || w.branch === candidate.branch)?.path;
}
