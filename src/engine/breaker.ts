/**
 * Circuit breakers: stop a candidate that is going nowhere. Each counter counts iterations
 * in a row; any iteration that breaks the streak resets it. Built from the iteration
 * history, so a resumed candidate keeps its streaks.
 */
import type { Outcome } from '../providers/types.js';
import type { StopReason } from './events.js';

export interface BreakerLimits {
  readonly sameFailureIterations: number;
  readonly errorIterations: number;
  readonly noDiffIterations: number;
}

export interface IterationSignal {
  readonly outcome: Outcome;
  /** Sorted names of the failed checks; empty when every check passed. */
  readonly failedChecks: readonly string[];
  /** The iteration changed the candidate's files. */
  readonly changed: boolean;
}

/** Outcomes that count as an error of the agent (rate limits and usage limits wait instead). */
export const ERROR_OUTCOMES: ReadonlySet<Outcome> = new Set(['refusal', 'crashed', 'timeout']);

export class Breaker {
  private sameFailure = 0;
  private lastFingerprint: string | undefined;
  private errors = 0;
  private noDiff = 0;

  constructor(private readonly limits: BreakerLimits) {}

  /** Records an iteration; returns the breaker that tripped, if any. */
  record(signal: IterationSignal): StopReason | undefined {
    const fingerprint = signal.failedChecks.length > 0 ? [...signal.failedChecks].sort().join('\u0000') : undefined;
    this.sameFailure = fingerprint !== undefined && fingerprint === this.lastFingerprint ? this.sameFailure + 1 : fingerprint ? 1 : 0;
    this.lastFingerprint = fingerprint;
    this.errors = ERROR_OUTCOMES.has(signal.outcome) ? this.errors + 1 : 0;
    this.noDiff = signal.changed ? 0 : this.noDiff + 1;
    if (this.errors >= this.limits.errorIterations) return 'breaker_errors';
    if (this.sameFailure >= this.limits.sameFailureIterations) return 'breaker_same_failure';
    if (this.noDiff >= this.limits.noDiffIterations) return 'breaker_no_diff';
    return undefined;
  }
}
