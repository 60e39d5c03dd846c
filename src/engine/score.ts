/**
 * Scoring one commit of a candidate with the frozen checks: the frozen paths are put back
 * exactly as in `base` in place (cost proportional to what the candidate touched, never a
 * second checkout), the checks run, and the candidate's own files are put back after.
 */
import { putBackCandidateFiles, restoreFrozenPaths } from '../checks/frozen.js';
import { runChecks } from '../checks/run-checks.js';
import type { CheckSpec } from '../spec/schema.js';
import type { CheckOutcome, TamperedPath } from './events.js';

export interface ScoreOptions {
  readonly worktree: string;
  readonly baseCommit: string;
  readonly commit: string;
  readonly frozen: readonly string[];
  readonly checks: readonly CheckSpec[];
  /** Untracked files from setup that must survive the clean-up after the checks. */
  readonly keepPaths: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logDir: string;
  readonly signal: AbortSignal;
  readonly onCheck?: (outcome: CheckOutcome) => void;
}

export interface Scoring {
  readonly score: number;
  readonly maxScore: number;
  readonly checks: readonly CheckOutcome[];
  readonly tampered: readonly TamperedPath[];
  /** The checks were interrupted by a cancel: the score is not complete. */
  readonly interrupted: boolean;
}

export async function scoreCommit(options: ScoreOptions): Promise<Scoring> {
  const tampered =
    options.frozen.length > 0
      ? await restoreFrozenPaths(options.worktree, { base: options.baseCommit, commit: options.commit, frozen: [...options.frozen] })
      : [];
  let checks: CheckOutcome[] = [];
  try {
    checks = await runChecks(options.checks, {
      cwd: options.worktree,
      env: options.env,
      signal: options.signal,
      logDir: options.logDir,
      onCheck: options.onCheck,
    });
  } finally {
    // Whatever the checks did, the worktree goes back to exactly the candidate's commit.
    await putBackCandidateFiles(options.worktree, { commit: options.commit, keep: [...options.keepPaths] });
  }
  return {
    score: checks.reduce((sum, c) => sum + c.points, 0),
    maxScore: options.checks.reduce((sum, c) => sum + c.score, 0),
    checks,
    tampered,
    interrupted: checks.length < options.checks.length,
  };
}
