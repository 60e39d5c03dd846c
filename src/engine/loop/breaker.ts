/**
 * Circuit breakers: stop a candidate that is going nowhere. Each counter counts iterations
 * in a row; any iteration that breaks the streak resets it. The counts are part of the
 * loop's state (rebuilt from the iteration history on resume, so a resumed candidate keeps
 * its streaks); which outcomes count as an agent error is the outcome table's call.
 */
import type { Outcome } from '../../providers/types.js';
import { OUTCOME_POLICY } from './outcome-policy.js';

export interface BreakerLimits {
  readonly sameFailureIterations: number;
  readonly errorIterations: number;
  readonly noDiffIterations: number;
}

export interface IterationSignal {
  readonly outcome: Outcome;
  /** Names of the failed checks; empty when every check passed. */
  readonly failedChecks: readonly string[];
  /** The iteration changed the candidate's files. */
  readonly changed: boolean;
}

export interface BreakerCounts {
  /** Iterations in a row that failed exactly the same checks. */
  readonly sameFailure: number;
  /** The failed checks of the last iteration, sorted and joined; undefined when none failed. */
  readonly lastFingerprint: string | undefined;
  /** Iterations in a row whose agent call was an error (OUTCOME_POLICY[...].breakerError). */
  readonly errors: number;
  /** Iterations in a row that changed nothing. */
  readonly noDiff: number;
}

export const NO_STREAKS: BreakerCounts = { sameFailure: 0, lastFingerprint: undefined, errors: 0, noDiff: 0 };

/** The counts after one more iteration. */
export function recordIteration(counts: BreakerCounts, signal: IterationSignal): BreakerCounts {
  const fingerprint = signal.failedChecks.length > 0 ? [...signal.failedChecks].sort().join('\u0000') : undefined;
  return {
    sameFailure: fingerprint !== undefined && fingerprint === counts.lastFingerprint ? counts.sameFailure + 1 : fingerprint ? 1 : 0,
    lastFingerprint: fingerprint,
    errors: OUTCOME_POLICY[signal.outcome].breakerError ? counts.errors + 1 : 0,
    noDiff: signal.changed ? 0 : counts.noDiff + 1,
  };
}

/** The breaker that tripped, if any; agent errors first, then the same failure, then no diff. */
export function trippedBreaker(counts: BreakerCounts, limits: BreakerLimits): 'breaker_errors' | 'breaker_same_failure' | 'breaker_no_diff' | undefined {
  if (counts.errors >= limits.errorIterations) return 'breaker_errors';
  if (counts.sameFailure >= limits.sameFailureIterations) return 'breaker_same_failure';
  if (counts.noDiff >= limits.noDiffIterations) return 'breaker_no_diff';
  return undefined;
}
