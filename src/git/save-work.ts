/**
 * Saving what is left in a worktree before it goes: the uncommitted files become a commit, or the
 * caller is told plainly that they could not, so that the worktree is kept rather than removed
 * with the work in it.
 */
import { err, ok, type Result } from '../result.js';
import { commitAll } from './commit.js';
import { GitCommandError, gitMessage, runGit } from './exec.js';
import { resolveCommit } from './repo.js';
import { subcommandOf } from './spawn-git.js';

export interface SavedWork {
  /** The commit made of the uncommitted changes; undefined when there were none. */
  readonly commit: string | undefined;
  /** HEAD after saving (the commit above, or the last one when nothing was left). */
  readonly head: string | undefined;
}

/**
 * Commits every uncommitted change of `worktree` except `excludePaths` (the setup files). An error
 * (not an exception) when git cannot even say whether something is left, or cannot commit it.
 */
export async function saveWorktreeWork(worktree: string, opts: { message: string; excludePaths: readonly string[] }): Promise<Result<SavedWork>> {
  // Not into submodules: git would run `git status` there under their own config, which an agent
  // can write (./submodule-work.ts); what is in them is never committed here anyway.
  const status = await runGit(worktree, ['status', '--porcelain', '-z', '--ignore-submodules=all']);
  if (status.code !== 0) return err(`git cannot read its state: ${gitMessage(status.stderr || status.stdout)}`);
  if (status.stdout === '') return ok({ commit: undefined, head: await resolveCommit(worktree, 'HEAD') });
  try {
    const committed = await commitAll(worktree, { message: opts.message, excludePaths: [...opts.excludePaths] });
    return ok({ commit: committed.commit, head: committed.commit ?? (await resolveCommit(worktree, 'HEAD')) });
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return err(`its changes cannot be committed: ${gitMessage(error.run.stderr || error.run.stdout)}`);
  }
}

/** A git command that had to work did not (GitCommandError): a failure of git's, not a bug of bestof's. */
export function isGitFailure(error: unknown): error is GitCommandError {
  return error instanceof GitCommandError;
}

/**
 * A git command ended by a signal it was not sent by bestof (a call bestof aborts rejects with an
 * AbortError instead). A signal to bestof's whole process group (a terminal's Ctrl-C, systemd, a
 * CI runner's or `bestof bench`'s cancel) reaches a git that bestof started in the instant between
 * its fork and its own process group: in a run being cancelled, that is the cancel, not a fault.
 */
export function isGitKilledBySignal(error: unknown): error is GitCommandError {
  return error instanceof GitCommandError && error.run.killedBy !== undefined;
}

/** `git for-each-ref, ended by SIGTERM`: a killed git call in a few words. */
export function killedGitInWords(error: GitCommandError): string {
  return `${['git', subcommandOf(error.args)].filter(Boolean).join(' ')}, ended by ${error.run.killedBy ?? 'a signal'}`;
}
