/**
 * Git's lock files left by a bestof that was killed in the middle of a git command
 * (`index.lock`, `HEAD.lock`, `<ref>.lock`): until they go, every later `git add`, commit or ref
 * update of that candidate fails with "Unable to create '...lock': File exists".
 *
 * Why removing them is safe, and only where the callers do it: git takes these locks only for the
 * length of one command. The files cleared here belong to one candidate of one run: its worktree's
 * own index and HEAD, its branch and its kept ref. The only processes that write them are that
 * run's bestof and that run's agents. Callers clear them only when that bestof is dead (resume holds
 * the run's lock, `bestof clean` skips runs whose process is alive) and its leftover agents have
 * been stopped, so no live process holds them. (A person running git by hand in the candidate's
 * worktree at that very moment is the one case this cannot see.) The shared locks of the whole
 * repository (`packed-refs.lock`, the main checkout's `index.lock`) are never touched: the user's
 * own git may hold them.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { adminDirsOf, commonGitDir } from './worktree-admin.js';

export interface CandidateGitNames {
  /** The candidate's worktree folder. */
  readonly worktree: string;
  /** Its branch, `bestof/<run>/<candidate>` (not `refs/heads/...`). */
  readonly branch: string;
  /** Its kept ref, `refs/bestof/<run>/<candidate>/kept`. */
  readonly keptRef: string;
}

/** Removes the stale git locks of one candidate of a dead run (see the module doc); returns the files removed. */
export async function clearStaleCandidateLocks(repo: string, names: CandidateGitNames): Promise<string[]> {
  const common = await commonGitDir(repo);
  const refLocks = [`refs/heads/${names.branch}`, names.keptRef]
    // A ref name never holds `..` (git refuses it): nothing outside the git dir is ever named here.
    .filter((ref) => typeof ref === 'string' && ref.startsWith('refs/') && !ref.split('/').includes('..'))
    .map((ref) => join(common, `${ref}.lock`));
  const candidates = [...adminDirsOf(common, names.worktree).flatMap((admin) => [join(admin, 'index.lock'), join(admin, 'HEAD.lock')]), ...refLocks];
  const removed: string[] = [];
  for (const file of candidates) {
    if (!existsSync(file)) continue;
    await rm(file, { force: true });
    removed.push(file);
  }
  return removed;
}
