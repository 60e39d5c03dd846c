/**
 * Saving what is left in a worktree before it goes: the uncommitted files become a commit, or the
 * caller is told plainly that they could not, so that the worktree is kept rather than removed
 * with the work in it.
 */
import { err, ok, type Result } from '../../result.js';
import { commitAll } from './commit.js';
import { gitMessage, runGit } from '../running/exec.js';
import { isGitFailure } from '../running/failures.js';
import { resolveCommit } from '../running/repo.js';

export interface SavedWork {
  /** The commit made of the uncommitted changes; undefined when there were none. */
  readonly commit: string | undefined;
  /** HEAD after saving (the commit above, or the last one when nothing was left). */
  readonly head: string | undefined;
  /** What no commit can hold and stays on disk only (a nested git repository, a link out: ../guards/escapes.ts), as `path (why)`. */
  readonly notHeld: readonly string[];
}

/**
 * Commits every uncommitted change of `worktree` except `excludePaths` (the setup files). An error
 * (not an exception) when git cannot even say whether something is left, or cannot commit it.
 */
export async function saveWorktreeWork(worktree: string, opts: { message: string; excludePaths: readonly string[] }): Promise<Result<SavedWork>> {
  // Not into submodules: git would run `git status` there under their own config, which an agent
  // can write (../worktrees/submodule-work.ts); what is in them is never committed here anyway.
  const status = await runGit(worktree, ['status', '--porcelain', '-z', '--ignore-submodules=all']);
  if (status.code !== 0) return err(`git cannot read its state: ${gitMessage(status.stderr || status.stdout)}`);
  if (status.stdout === '') return ok({ commit: undefined, head: await resolveCommit(worktree, 'HEAD'), notHeld: [] });
  try {
    const committed = await commitAll(worktree, { message: opts.message, excludePaths: [...opts.excludePaths] });
    const notHeld = committed.skipped
      .filter((file) => file.reason === 'nested_repo' || file.reason === 'link_out')
      .map((file) => `${file.path} (${file.reason === 'nested_repo' ? 'a nested git repository' : 'a link out of the worktree'})`);
    return ok({ commit: committed.commit, head: committed.commit ?? (await resolveCommit(worktree, 'HEAD')), notHeld });
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return err(`its changes cannot be committed: ${gitMessage(error.run.stderr || error.run.stdout)}`);
  }
}
