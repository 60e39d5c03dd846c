/**
 * What every step of `bestof clean` shares: the repository, the options, and where it speaks.
 * The steps say what they do and why they keep something; how a line is printed (stdout or
 * stderr, "would" on a dry run, made printable) is the CLI's business (src/cli/commands/clean.ts).
 */
import type { WorktreeInfo } from '../../git/worktrees/worktree.js';
import type { CleanCowMode } from './cow.js';

/** Where clean's lines go; each is one line, without its newline. */
export interface CleanOutput {
  /** An action: done, or on a dry run one that would be done. */
  readonly say: (line: string) => void;
  /** Something left alone, and why. */
  readonly note: (line: string) => void;
  /** A failure, or a worktree kept because its work could not be saved. */
  readonly problem: (line: string) => void;
}

export interface CleanContext extends CleanOutput {
  readonly repoRoot: string;
  /** The repository's worktrees as git lists them, before anything was removed. */
  readonly worktrees: readonly WorktreeInfo[];
  readonly dryRun: boolean;
  /** `--all`: a winner's branch not merged yet goes too (its commit stays under refs/bestof). */
  readonly all: boolean;
  readonly cow: CleanCowMode;
}
