/**
 * `bestof clean [run] [--dry-run] [--all] [--runs --older-than 30d]`: removes the worktrees and
 * branches that finished runs left behind (kept with `keep_worktrees`, or left by a run that was
 * killed), the per-run folders left empty under the worktrees root, and the folders of runs stopped
 * before their first event (they recorded nothing). With `--runs`, also the
 * run folders and refs of old runs that hold nothing unmerged (../clean-runs.ts says the rule).
 *
 * It never loses work: changes left uncommitted in a worktree are committed and kept under
 * refs/bestof/<run>/<candidate>/kept before the worktree goes, and a branch is deleted only
 * when its commit is kept under refs/bestof (the kept ref, or bestof's revert commit at
 * refs/bestof/<run>/<candidate>/reverted) or merged into another branch. The winner's branch
 * stays unless it is merged or `--all` is given (its commit stays under refs/bestof).
 *
 * A killed run leaves worse than worktrees: processes (stopped first, found by the run's key),
 * git locks (cleared, the run being dead), worktrees whose `.git` link its agent destroyed
 * (repaired, then saved), half-made worktrees whose setup never completed (no agent ever worked
 * there: removed). A worktree whose work cannot be committed is kept, with where and why, and
 * clean exits 1; so is one whose submodules hold its agent's edits or commits (bestof commits
 * nothing inside submodules).
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { EXIT_CODES } from '../../engine/exit-codes.js';
import { resolve } from 'node:path';
import { parseCommandArgs } from '../args.js';
import { currentRepoRoot, findRun, loadRunState, NewerRecordError, orNewerRecord } from '../run-lookup.js';
import { branchesContaining, deleteBranch, isAncestor, updateRef } from '../../git/refs.js';
import { hasUncommittedChanges, resolveCommit } from '../../git/repo.js';
import { listWorktrees, pruneWorktrees, removeWorktree, removeWorktreeTrash, type WorktreeInfo } from '../../git/worktree.js';
import { discardWorktree } from '../../git/worktree-admin.js';
import { repairWorktreeLinkDetailed } from '../../git/worktree-link.js';
import { clearStaleCandidateLocks } from '../../git/stale-locks.js';
import { saveWorktreeWork } from '../../git/save-work.js';
import { changedSubmodules, submoduleWorkSaid } from '../../git/submodule-work.js';
import { waitForGitToLeaveEach } from '../../git/worktree-users.js';
import { listRunFolders, readSetupPaths, setupPathsFile, type RunListing } from '../../engine/run-folder.js';
import { runIsAlive } from '../../engine/run-lock.js';
import { readRunKey, stopRunLeftovers } from '../../engine/leftovers.js';
import { revertedRef } from '../../engine/merge-policy.js';
import { runBaseDir } from '../../providers/shannon/paths.js';
import { notAFolder } from '../../git/guard.js';
import type { CandidateState, RunState } from '../../engine/run-state.js';
import { isCowWorktree } from '../../engine/cow-layout.js';
import { changesFolder, cleanCowMode, mountForClean, removeForClean, removeRunCowBase, type CleanCowMode } from '../clean-cow.js';
import { cleanOldRuns, parseAge, removeRunFolderLeftovers, removeLeftoverTrash, removeUnrecordedRunFolders } from '../clean-runs.js';
import { UsageError } from '../usage-error.js';
import { printable, printableLines } from '../../printable.js';

/** How long clean waits for git commands of a dead run to finish in a worktree. */
const LEFTOVER_GIT_WAIT_MS = 30_000;

export async function cleanCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('clean', args);
  const dryRun = values['dry-run'] === true;
  if (values['older-than'] !== undefined && !values.runs) throw new UsageError('clean: --older-than goes with --runs: `bestof clean --runs --older-than 30d` (see `bestof clean --help`)');
  if (values.runs && values['older-than'] === undefined) throw new UsageError('clean: --runs needs --older-than, e.g. `bestof clean --runs --older-than 30d` (see `bestof clean --help`)');
  const olderThanMs = values['older-than'] === undefined ? undefined : parseAge(values['older-than']);
  const repoRoot = await currentRepoRoot();
  const listed: RunListing[] = positionals[0] ? [await findRun(repoRoot, positionals[0])] : await listRunFolders(repoRoot);
  const say = (line: string): void => {
    // Printable (src/printable.ts): a line can name what an agent made (a link's target, a submodule's path).
    process.stdout.write(`${dryRun ? 'would ' : ''}${printable(line)}\n`);
  };
  const worktrees = await listWorktrees(repoRoot);
  const { runs, states } = await runsToClean(listed, positionals[0] !== undefined);
  // Copy-on-write worktrees are seen only inside a mount namespace: clean runs itself in one (../clean-cow.ts).
  const cow = await cleanCowMode(
    [...states.values()].flatMap((state) => Object.values(state.candidates).flatMap((c) => (c?.worktree ? [c.worktree] : []))),
    dryRun,
  );
  if (cow.kind === 'ran-inside') return cow.exitCode;
  const context: CleanContext = { repoRoot, worktrees, dryRun, all: values.all === true, say, cow };
  let actions = 0;
  let keptWithWork = 0;
  /** Runs with a worktree kept for its unsaved work: --runs leaves them. */
  const keptRuns = new Set<string>();
  for (const run of runs) {
    if (runIsAlive(run.runDir)) {
      process.stdout.write(`skip ${run.runId}: it is still running (stop it first)\n`);
      continue;
    }
    const cleaned = await cleanRun(context, run, states.get(run.runId) ?? (await loadRunState(run.runDir)));
    actions += cleaned.actions;
    keptWithWork += cleaned.keptWithWork;
    if (cleaned.keptWithWork > 0) keptRuns.add(run.runId);
  }
  if (!dryRun) await pruneWorktrees(repoRoot);
  actions += await removeLeftoverTrash(repoRoot, dryRun, say);
  actions += await removeRunFolderLeftovers(repoRoot, dryRun, say);
  if (!positionals[0]) actions += await removeUnrecordedRunFolders(repoRoot, dryRun, say);
  if (olderThanMs !== undefined) {
    const old = await cleanOldRuns({ repoRoot, runs, olderThanMs, all: context.all, dryRun, keptWorktrees: keptRuns, loadState: loadRunState, say });
    actions += old.removed;
    if (old.removed === 0 && old.kept === 0) process.stdout.write(`no run started more than ${values['older-than']} ago\n`);
  }
  if (actions === 0) process.stdout.write('nothing to clean\n');
  else if (!dryRun) process.stdout.write(`done; every candidate's commits stay under refs/bestof/ (\`git for-each-ref refs/bestof\`)\n`);
  if (keptWithWork > 0) {
    const kept = dryRun ? `${keptWithWork === 1 ? '' : 's'} would be` : keptWithWork === 1 ? ' was' : 's were';
    const then = dryRun ? 'before you run `bestof clean`' : 'and run `bestof clean` again';
    process.stderr.write(`${keptWithWork} worktree${kept} kept with work that could not be saved (see above); fix what is said there ${then}\n`);
    return EXIT_CODES.cleanKeptWork;
  }
  return EXIT_CODES.ok;
}

/** What every step of a clean shares. */
interface CleanContext {
  readonly repoRoot: string;
  /** The repository's worktrees as git lists them, before anything was removed. */
  readonly worktrees: readonly WorktreeInfo[];
  readonly dryRun: boolean;
  /** `--all`: a winner's branch not merged yet goes too (its commit stays under refs/bestof). */
  readonly all: boolean;
  /** Says an action (prefixed with "would" on a dry run). */
  readonly say: (line: string) => void;
  readonly cow: CleanCowMode;
}

/**
 * The runs to clean, with the record of each that is not running (a running one is skipped later,
 * with a word). A run a newer bestof recorded is left alone, whole: this one cannot tell what of it
 * is safe to remove; named on the command line (`named`), it is an error.
 */
async function runsToClean(listed: readonly RunListing[], named: boolean): Promise<{ runs: RunListing[]; states: Map<string, RunState> }> {
  const states = new Map<string, RunState>();
  const runs: RunListing[] = [];
  for (const run of listed) {
    if (!runIsAlive(run.runDir)) {
      const state = await orNewerRecord(loadRunState(run.runDir));
      if (state instanceof NewerRecordError) {
        if (named) throw state;
        process.stdout.write(`skip ${run.runId}: recorded by a newer bestof (record format ${state.format}); clean it with that bestof\n`);
        continue;
      }
      states.set(run.runId, state);
    }
    runs.push(run);
  }
  return { runs, states };
}

/**
 * One run that is not running: what it left running stopped, then each candidate's worktree (its
 * work saved first) and branch (once its commit is kept or merged), then the shared base checkout
 * of copy-on-write worktrees. `keptWithWork`: worktrees kept because their work could not be saved.
 */
async function cleanRun(context: CleanContext, run: RunListing, state: RunState): Promise<{ actions: number; keptWithWork: number }> {
  const { repoRoot, dryRun, say } = context;
  // Its agents, checks or daemons may outlive a killed bestof, still writing in the worktrees.
  const runKey = readRunKey(run.runDir);
  if (runKey && !dryRun) {
    const stopped = await stopRunLeftovers(runKey);
    if (stopped > 0) say(`stop ${stopped} process${stopped === 1 ? '' : 'es'} ${run.runId} left running`);
  }
  // A shannon run's tmux socket and hook folders, under the system temp folder: left by a killed bestof.
  const shannonDir = runBaseDir(run.runDir);
  if (!dryRun && existsSync(shannonDir)) {
    await rm(shannonDir, { recursive: true, force: true });
    say(`remove ${shannonDir} (the run's tmux socket and hook folders)`);
  }
  const folders = new Map(state.order.map((id) => [id, state.candidates[id] && candidateWorktree(state.candidates[id], context.worktrees)]));
  // A git command of the dead run may still be writing in a worktree (a long checkout): each is
  // let end first, all of the run's worktrees waited for together (one settle, not one each).
  const gitStillIn = dryRun ? new Map<string, number[]>() : await waitForGitToLeaveEach([...folders.values()].filter((f): f is string => f !== undefined), { timeoutMs: LEFTOVER_GIT_WAIT_MS });
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
      process.stdout.write(`leave ${folder}: ${id}'s agent replaced its worktree folder with it, and bestof touches nothing there (look at it, then delete it yourself)\n`);
    } else if (standing !== undefined) {
      process.stdout.write(`leave ${candidate.worktree}: it is ${printable(standing)}, not the worktree folder bestof made for ${id}, and bestof touches nothing there (look at it, then delete it yourself)\n`);
    } else if (folder) {
      actions += 1;
      const setupFile = setupPathsFile(run.runDir, id);
      const done = await cleanWorktree(context, { id, candidate, folder, setupFile, baseCommit: state.baseCommit, gitStillIn: gitStillIn.get(folder) ?? [] });
      if (done === 'kept') {
        keptWithWork += 1;
        continue; // its branch stays with it
      }
    }
    if (await cleanBranch(context, { id, candidate, runId: run.runId, isWinner: id === state.winner })) actions += 1;
  }
  // Also when no layer is left (a run killed after removing its candidates' layers): the base alone needs no namespace.
  if (!dryRun) {
    const runWorktrees = Object.values(state.candidates).flatMap((c) => (c?.worktree ? [c.worktree] : []));
    const base = await removeRunCowBase(repoRoot, runWorktrees);
    if (!base.ok) process.stderr.write(`${printableLines(base.error)}\n`);
    else if (base.value) say(`remove ${run.runId}'s shared base checkout (copy-on-write worktrees)`);
  }
  return { actions, keptWithWork };
}

/**
 * A candidate's branch, deleted when its commit is kept under refs/bestof (its kept ref or the
 * revert commit's ref: a kept ref still missing is made) or merged into another branch; a winner
 * not merged yet stays without `--all`. Whether it was (or, on a dry run, would be) deleted.
 */
async function cleanBranch(context: CleanContext, of: { id: string; candidate: CandidateState; runId: string; isWinner: boolean }): Promise<boolean> {
  const { repoRoot, dryRun, say } = context;
  const { id, candidate } = of;
  const tip = await resolveCommit(repoRoot, `refs/heads/${candidate.branch}`);
  if (!tip) return false;
  const keptAt = await resolveCommit(repoRoot, candidate.ref);
  const revertedAt = await resolveCommit(repoRoot, revertedRef(candidate.ref));
  const kept = (keptAt !== undefined && (await isAncestor(repoRoot, tip, keptAt))) || (revertedAt !== undefined && (await isAncestor(repoRoot, tip, revertedAt)));
  const merged = await onAnotherBranch(repoRoot, tip, candidate.branch);
  if (of.isWinner && !merged && !context.all) {
    process.stdout.write(`keep ${candidate.branch}: the winner of ${of.runId}, not merged yet (merge it, or clean with --all)\n`);
    return false;
  }
  if (!kept && !merged) {
    if (dryRun) {
      say(`keep ${id}'s last commit at ${candidate.ref}`);
    } else if (!keptAt) {
      await updateRef(repoRoot, candidate.ref, tip);
    } else {
      process.stdout.write(`keep ${candidate.branch}: its commit ${tip.slice(0, 10)} is not under ${candidate.ref} nor merged\n`);
      return false;
    }
  }
  say(`delete branch ${candidate.branch}${merged ? ' (merged)' : ` (kept at ${candidate.ref})`}`);
  if (!dryRun) {
    const deleted = await deleteBranch(repoRoot, candidate.branch, { force: true });
    if (!deleted.ok) process.stderr.write(`${printableLines(deleted.error)}\n`);
  }
  return true;
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

interface CleanWorktreeRequest {
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

/**
 * One worktree of a dead run: its work saved under the kept ref, then the worktree removed. A
 * worktree whose setup never completed had no agent in it: removed as it is. `kept`: the work could
 * not be saved, so the worktree stays and the user was told where and why.
 */
async function cleanWorktree(context: CleanContext, request: CleanWorktreeRequest): Promise<'removed' | 'kept'> {
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
    process.stderr.write(`keep worktree ${folder}: it is a copy-on-write worktree, which cannot be mounted here (${context.cow.why}); ${id}'s changes are in ${changesFolder(folder)}\n`);
    return 'kept';
  }
  if (dryRun && layered) {
    say(`${setupCompleted ? `save ${id}'s uncommitted changes (if any) at ${candidate.ref}, then ` : ''}remove copy-on-write worktree ${folder} and its layer`);
    return 'removed';
  }
  if (dryRun) {
    if (!setupCompleted) say(`remove ${folder}: ${id}'s setup never completed, so no agent worked in it`);
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
  const keepIt = (why: string): 'kept' => {
    const where = layered ? `${id}'s changes over the base commit are in ${changesFolder(folder)}` : `${id}'s files are there as its agent left them`;
    process.stderr.write(`keep worktree ${folder}: ${printableLines(why)}; ${where}\n`);
    return 'kept';
  };
  if (request.gitStillIn.length > 0) return keepIt(`git processes ${request.gitStillIn.join(', ')} are still working in it; let them end or stop them, then clean again`);
  if (layered) {
    const mounted = await mountForClean(repoRoot, folder, candidate.branch, request.baseCommit);
    if (!mounted.ok) return keepIt(mounted.error);
  }
  const remove = async (): Promise<void> => {
    const removed = layered ? await removeForClean(repoRoot, folder) : await removeWorktree(repoRoot, folder, { force: true });
    if (!removed.ok) process.stderr.write(`${printableLines(removed.error)}\n`);
  };
  if (!setupCompleted) {
    say(`remove ${folder}: ${id}'s setup never completed, so no agent worked in it`);
    if (layered) await remove();
    else await discardWorktree(repoRoot, folder);
    return 'removed';
  }
  // The run is dead (checked above): whatever git locks it left are stale (see src/git/stale-locks.ts).
  const cleared = await clearStaleCandidateLocks(repoRoot, { worktree: folder, branch: candidate.branch, keptRef: candidate.ref });
  if (cleared.length > 0) say(`remove ${id}'s git locks left by the dead run: ${cleared.join(', ')}`);
  const link = await repairWorktreeLinkDetailed(repoRoot, folder, candidate.branch);
  if (!link.ok) return keepIt(link.error);
  if (link.value.status === 'repaired') {
    const aside = link.value.movedAside ? `; its agent's own .git folder is at ${link.value.movedAside}` : '';
    say(`repair ${id}'s worktree (${link.value.problem ?? 'its .git link was broken'})${aside}`);
  }
  const saved = await saveWorktreeWork(folder, { message: `bestof: ${id} work left in the worktree (saved by bestof clean)`, excludePaths: readSetupPaths(request.setupFile) });
  if (!saved.ok) return keepIt(`its uncommitted work could not be saved (${saved.error})`);
  if (saved.value.commit) {
    say(`commit ${id}'s uncommitted changes and keep them at ${candidate.ref}`);
    await updateRef(repoRoot, candidate.ref, saved.value.commit);
  } else if (saved.value.head) {
    // Keep the worktree's last commit even if the run died before recording it.
    const kept = await resolveCommit(repoRoot, candidate.ref);
    if (!kept || !(await isAncestor(repoRoot, saved.value.head, kept))) await updateRef(repoRoot, candidate.ref, saved.value.head);
  }
  // A nested repository or a link out: no commit can hold it, and removing the worktree would lose it.
  if (saved.value.notHeld.length > 0) return keepIt(`it holds what no commit can hold: ${saved.value.notHeld.join(', ')}; copy what you need, then remove it from the worktree`);
  // Edits or commits inside a submodule are in no commit of bestof's (it commits nothing inside
  // submodules), and a commit made there lives in the submodule's git dir, under the worktree's.
  const inSubmodules = await changedSubmodules(folder).catch(() => []);
  if (inSubmodules.length > 0) return keepIt(submoduleWork(inSubmodules, folder));
  say(`remove worktree ${folder}`);
  await remove();
  return 'removed';
}

/** Why a worktree stays for its submodules, and what the user does about it. */
function submoduleWork(submodules: readonly string[], folder: string): string {
  return `${submoduleWorkSaid(submodules)}; copy what you need, then delete the folder (\`rm -rf ${folder}\`) and run \`bestof clean\` again`;
}

/** Is the commit on a local branch other than `branch` itself? */
async function onAnotherBranch(repoRoot: string, sha: string, branch: string): Promise<boolean> {
  return (await branchesContaining(repoRoot, sha)).some((name) => name !== branch);
}
