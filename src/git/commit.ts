/** Checkpoint commits of a candidate's work inside its worktree. */
import { gitOut, identityArgs, splitNul, withPathspecFile, type GitCallOptions } from './exec.js';
import { excludeLiteralPathspec, literalPathspec } from './paths.js';

export interface CommitAllOptions {
  message: string;
  /**
   * Paths (relative to the worktree root, taken literally; a folder covers what is under it)
   * that must never be committed, e.g. files copied in by `[setup] copy` such as `.env`.
   */
  excludePaths?: string[];
  signal?: AbortSignal;
}

export type CommitAllResult = { commit: string; changedFiles: number } | { commit: undefined };

/**
 * Stages every change in the worktree (`git add -A`) except `excludePaths` and commits it.
 * Returns the new HEAD, or `{ commit: undefined }` when there was nothing to commit.
 * `worktree` must be the worktree's root folder.
 */
export async function commitAll(worktree: string, opts: CommitAllOptions): Promise<CommitAllResult> {
  const call = { signal: opts.signal };
  const excluded = opts.excludePaths ?? [];
  // `:/` is the whole worktree and nothing outside it; excludes are literal (no globbing).
  await withPathspecFile([':/', ...excluded.map(excludeLiteralPathspec)], (from) =>
    gitOut(worktree, ['add', '-A', ...from], call),
  );
  if (excluded.length > 0) {
    // An agent may have run `git add .env` itself: unstage excluded paths so they never land in a commit.
    await withPathspecFile(excluded.map(literalPathspec), (from) => gitOut(worktree, ['reset', '--quiet', ...from], call));
  }
  const staged = splitNul(await gitOut(worktree, ['diff', '--cached', '--name-only', '-z', '--no-renames'], call));
  if (staged.length === 0) return { commit: undefined };
  const identity = await identityArgs(worktree, call);
  // --no-verify: this is the tool's automatic checkpoint of an agent's work, not a commit by the user.
  // The user's pre-commit/commit-msg hooks (linters, ticket-number checks) would otherwise decide
  // whether a candidate's iteration is recorded at all; the spec's checks are what judges the work.
  // --no-gpg-sign: dozens of unattended commits must not block on a signing prompt.
  await gitOut(worktree, [...identity, 'commit', '--quiet', '--no-verify', '--no-gpg-sign', '--no-edit', '-m', opts.message], call);
  const commit = (await gitOut(worktree, ['rev-parse', 'HEAD'], call)).trim();
  return { commit, changedFiles: staged.length };
}

/** Untracked, not ignored files of the worktree, relative to its root. */
export async function untrackedFiles(worktree: string, opts: GitCallOptions = {}): Promise<string[]> {
  return splitNul(await gitOut(worktree, ['ls-files', '--others', '--exclude-standard', '-z', '--', ':/'], opts));
}
