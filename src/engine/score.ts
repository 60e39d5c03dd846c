/**
 * Scoring one commit of a candidate with the frozen checks: the frozen paths are put back
 * exactly as in `base` in place (cost proportional to what the candidate touched, never a
 * second checkout), the checks run, and the candidate's own files are put back after.
 */
import { findTampering, putBackCandidateFiles, restoreFrozenPaths } from '../checks/frozen.js';
import { runChecks } from '../checks/run-checks.js';
import type { CheckSpec } from '../spec/schema.js';
import type { TamperedPath } from '../checks/frozen.js';
import type { CheckOutcome } from '../checks/run-checks.js';

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
  if (options.checks.length === 0) {
    // Nothing to run: tampering is still recorded, without touching the worktree.
    const tampered = options.frozen.length > 0 ? await findTampering(options.worktree, { base: options.baseCommit, commit: options.commit, frozen: [...options.frozen] }) : [];
    return { score: 0, maxScore: 0, checks: [], tampered, interrupted: false };
  }
  let tampered: Scoring['tampered'] = [];
  let checks: CheckOutcome[] = [];
  try {
    if (options.frozen.length > 0) {
      tampered = await restoreFrozenPaths(options.worktree, { base: options.baseCommit, commit: options.commit, frozen: [...options.frozen], keep: [...options.keepPaths] });
    }
    checks = await runChecks(options.checks, {
      cwd: options.worktree,
      env: options.env,
      signal: options.signal,
      logDir: options.logDir,
      onCheck: options.onCheck,
    });
  } finally {
    // Whatever the checks did (or a failed restore), the worktree goes back to exactly the
    // candidate's commit; no signal, so that a cancel cannot interrupt the put-back.
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
