/** src/git: worktrees, branches, commits, diff, merge. Import from here or from the role files. */
export { GitCommandError, type GitCallOptions, type GitOutcome, type GitRun } from './exec.js';
export { openRepo, resolveCommit, currentBranch, dirtyPaths, ensureExcluded, gitPath, type RepoInfo } from './repo.js';
export {
  addWorktree,
  removeWorktree,
  pruneWorktrees,
  listWorktrees,
  type AddWorktreeOptions,
  type WorktreeInfo,
} from './worktree.js';
export { commitAll, untrackedFiles, type CommitAllOptions, type CommitAllResult } from './commit.js';
export { updateRef, deleteRef, listRefs, listBranches, deleteBranch, isReachableFromAnyBranch, type RefInfo } from './refs.js';
export { diffStat, diffText, type DiffStat } from './diff.js';
export {
  mergeWinner,
  operationInProgress,
  type MergeMode,
  type MergeWinnerOptions,
  type MergeWinnerResult,
  type MergeFailureReason,
} from './merge.js';
