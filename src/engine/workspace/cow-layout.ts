/**
 * Where a run's copy-on-write worktrees keep their layers (src/git/worktrees/cow-worktree.ts), beside the
 * worktrees, under the run's folder of the worktrees root, which the sandbox hides from every
 * agent (only an agent's own worktree, the merged tree, is bound back):
 *
 *   <worktrees root>/<run>/<candidate>             the mount point (the worktree's path)
 *   <worktrees root>/<run>/.cow/base               the shared checkout of the base commit (lower layer)
 *   <worktrees root>/<run>/.cow/layers/<candidate> its upper layer and overlayfs's work folder
 *
 * Derived from the worktree's path alone, so that `bestof clean` finds them from a run's record.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The `.cow` folder of the run the worktree belongs to. */
export function cowDir(worktree: string): string {
  return join(dirname(worktree), '.cow');
}

/** The run's shared base checkout (the lower layer of every candidate). */
export function cowBaseDir(worktree: string): string {
  return join(cowDir(worktree), 'base');
}

/** The candidate's layer folder (`upper/`, `work/`). */
export function cowLayerDir(worktree: string): string {
  return join(cowDir(worktree), 'layers', basename(worktree));
}

/** Is this worktree a copy-on-write one (its upper layer on disk, mounted or not)? */
export function isCowWorktree(worktree: string): boolean {
  return existsSync(join(cowLayerDir(worktree), 'upper'));
}

/** The trash folder's name in the worktrees root (`bestof clean` looks there too). */
export const COW_TRASH = '.bestof-trash';

/**
 * Where a finished run's shared base checkout goes to be deleted after the run: beside the runs'
 * folders in the worktrees root (the same file system, so moving it there is a rename). A process
 * of its own deletes it while bestof exits (src/process/background-remove.ts); `bestof clean`
 * deletes what such a process left (killed, or the machine stopped).
 */
export function cowTrashRoot(worktree: string): string {
  return join(dirname(dirname(worktree)), COW_TRASH);
}
