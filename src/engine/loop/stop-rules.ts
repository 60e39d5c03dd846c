/**
 * The stop rules of a candidate's loop, as pure functions of its LoopState: what keeps the
 * next iteration from starting (cancel, a stop sent through the channel, the time limits,
 * the budget, the iteration cap, the phases), what ends the loop after an iteration (the
 * score threshold, a regression, a circuit breaker), and how the reason a loop ended maps
 * to the candidate's final status. Each list is in order of precedence: the first rule that
 * holds is the one reported.
 */
import type { Outcome } from '../../providers/types.js';
import { trippedBreaker, type BreakerLimits } from './breaker.js';
import { timeLeft, type LoopState } from './loop-state.js';
import { plural } from '../words.js';
import type { StopReason } from '../record/run-types.js';
import type { ThresholdReached } from './others-stop.js';

/** Every StopReason (../record/run-types.ts), with what the less obvious ones mean; the compiler checks the list is whole. */
export const STOP_REASONS = [
  /** One round was asked for and it ran. */
  'completed',
  'threshold_reached',
  'max_iterations',
  /** The hard limit of iterations that no spec can lift past (100). */
  'hard_limit',
  /** allow_regression = false and the score dropped. */
  'regression',
  'candidate_duration',
  'run_duration',
  'budget_total',
  'budget_candidate',
  'breaker_same_failure',
  'breaker_errors',
  'breaker_no_diff',
  'rate_limited',
  'usage_limit',
  'auth_error',
  'setup_failed',
  /** Git or bestof failed while making the worktree (not the spec's setup): the candidate was lost, not beaten. */
  'infrastructure_failed',
  'provider_failed',
  'stopped_by_user',
  'cancelled',
  'internal_error',
  /** Its worktree folder was replaced while its agent ran (renamed, a symbolic link put in its place): bestof works in it no more. */
  'worktree_replaced',
  /** `[select] stop_others = "on_threshold"`: another candidate reached the threshold and can win. */
  'other_reached_threshold',
] as const satisfies readonly StopReason[];
// A reason missing from the list above fails here.
const everyReasonListed: Exclude<StopReason, (typeof STOP_REASONS)[number]> extends never ? true : never = true;
void everyReasonListed;

/** Why the loop ended, and what to tell the user when the reason alone does not say it. */
export interface Stop {
  readonly reason: StopReason;
  readonly message?: string;
}

/** The limits the rules compare the state with; all from the plan, fixed for the whole loop. */
export interface LoopLimits {
  /** loop.max_iterations after the hard limit (plan.maxIterations). */
  readonly maxIterations: number;
  /** What the spec asked for before the hard limit (plan.requestedIterations). */
  readonly requestedIterations: number;
  readonly hardIterationLimit: number;
  /** How many `[[prompts]]` phases the spec has (0: no phases). */
  readonly phaseCount: number;
  readonly scoreThreshold: number;
  readonly allowRegression: boolean;
  readonly breaker: BreakerLimits;
  /** For the budget messages only: the caps are enforced by the run's BudgetLedger. */
  readonly maxTotalCostUsd?: number;
  readonly maxCandidateCostUsd?: number;
}

/** What the loop sees outside its own state at an iteration boundary. */
export interface Surroundings {
  /** The run was cancelled (its AbortSignal). */
  readonly aborted: boolean;
  /** The run's BudgetLedger says this candidate may not start new work. */
  readonly budgetBlocked?: 'budget_total' | 'budget_candidate';
  /** `[select] stop_others`: another candidate reached the threshold and can win (./others-stop.ts); `keptAt` is this one's kept ref. */
  readonly otherReachedThreshold?: { readonly by: ThresholdReached; readonly keptAt: string };
}

/** Before the workspace is even set up: the run may already be past its time limit, or another candidate may have won the race. */
export function stopBeforeStart(
  state: Pick<LoopState, 'runDeadline'>,
  now: number,
  around: Pick<Surroundings, 'otherReachedThreshold'> = {},
): Stop | undefined {
  if (state.runDeadline !== undefined && now >= state.runDeadline) {
    return { reason: 'run_duration', message: 'the run reached loop.run_duration before this candidate started' };
  }
  if (around.otherReachedThreshold) return stoppedByOther(around.otherReachedThreshold.by, 'it had not started, so it has no work to keep');
  return undefined;
}

/** Every rule that keeps a new iteration from starting, in order of precedence. */
export function stopBeforeIteration(state: LoopState, limits: LoopLimits, now: number, around: Surroundings = { aborted: false }): Stop | undefined {
  if (around.aborted) return { reason: 'cancelled' };
  if (state.stopRequested) return { reason: 'stopped_by_user', message: 'stopped on request; its work so far is kept' };
  if (state.runDeadline !== undefined && now >= state.runDeadline) return { reason: 'run_duration' };
  if (state.candidateDeadline !== undefined && now >= state.candidateDeadline) return { reason: 'candidate_duration' };
  if (around.budgetBlocked === 'budget_total') {
    return {
      reason: 'budget_total',
      message: `the run's budget (max_total_cost_usd = $${limits.maxTotalCostUsd}) is spent; no new work starts and what was done is kept`,
    };
  }
  if (around.budgetBlocked === 'budget_candidate') {
    return {
      reason: 'budget_candidate',
      message: `this candidate's budget (max_candidate_cost_usd = $${limits.maxCandidateCostUsd}) is spent; what it did is kept`,
    };
  }
  if (state.iteration >= limits.maxIterations) {
    if (limits.requestedIterations > limits.hardIterationLimit) {
      return {
        reason: 'hard_limit',
        message: `stopped at the hard limit of ${plural(limits.hardIterationLimit, 'iteration')} (the spec asked for ${limits.requestedIterations})`,
      };
    }
    return { reason: limits.maxIterations === 1 ? 'completed' : 'max_iterations' };
  }
  if (limits.phaseCount > 0 && state.phase.index >= limits.phaseCount) return { reason: 'max_iterations' };
  // Last: a candidate that would have stopped anyway is not one the threshold stopped (nor counted as calls saved).
  if (around.otherReachedThreshold) return stoppedByOther(around.otherReachedThreshold.by, `its work so far is kept on ${around.otherReachedThreshold.keptAt}`);
  return undefined;
}

/** The stop of a candidate whose rival reached the threshold first, with what was kept of it. */
function stoppedByOther(by: ThresholdReached, kept: string): Stop {
  return {
    reason: 'other_reached_threshold',
    message: `stopped: ${by.candidate} reached the threshold (${plural(by.score, 'point')}) and select.stop_others = "on_threshold"; ${kept}`,
  };
}

/**
 * After an agent call that hit its timeout: when it was the candidate's or the run's time
 * limit that cut it (not the provider's own timeout), the candidate stops there.
 */
export function stopOutOfTime(state: Pick<LoopState, 'candidateDeadline' | 'runDeadline'>, now: number): Stop | undefined {
  const left = timeLeft(state, now);
  if (left === undefined || left > 0) return undefined;
  const run = state.runDeadline !== undefined && now >= state.runDeadline;
  return { reason: run ? 'run_duration' : 'candidate_duration', message: `the ${run ? 'run' : "candidate's"} time limit was reached; what it wrote is kept` };
}

/**
 * The rules that end the loop once an iteration is scored, in order of precedence. `state`
 * is the state after the iteration (its score, feedback and breaker counts recorded).
 */
export function stopAfterIteration(state: LoopState, limits: LoopLimits): Stop | undefined {
  const maxScore = state.feedback?.maxScore ?? 0;
  // A refusal keeps the candidate going: the score alone does not finish it.
  if (maxScore > 0 && state.lastScore >= limits.scoreThreshold && !state.feedback?.refuseReason) return { reason: 'threshold_reached' };
  if (!limits.allowRegression && state.iteration > 1 && state.lastScore < state.previousScore) {
    return { reason: 'regression', message: `the score dropped from ${state.previousScore} to ${state.lastScore} (allow_regression = false)` };
  }
  const tripped = trippedBreaker(state.breaker, limits.breaker);
  if (tripped) return { reason: tripped, message: breakerMessage(tripped, limits.breaker) };
  return undefined;
}

export function breakerMessage(reason: 'breaker_same_failure' | 'breaker_errors' | 'breaker_no_diff', limits: BreakerLimits): string {
  switch (reason) {
    case 'breaker_same_failure':
      return `the same checks failed ${plural(limits.sameFailureIterations, 'iteration')} in a row`;
    case 'breaker_errors':
      return `the agent failed ${plural(limits.errorIterations, 'iteration')} in a row`;
    case 'breaker_no_diff':
      return `${plural(limits.noDiffIterations, 'iteration')} in a row changed nothing`;
  }
}

export type FinalStatus = 'done' | 'failed' | 'stopped' | 'cancelled';

export const STATUS_OF_REASON: Record<StopReason, FinalStatus> = {
  completed: 'done',
  threshold_reached: 'done',
  max_iterations: 'done',
  hard_limit: 'done',
  regression: 'stopped',
  candidate_duration: 'stopped',
  run_duration: 'stopped',
  budget_total: 'stopped',
  budget_candidate: 'stopped',
  breaker_same_failure: 'stopped',
  breaker_errors: 'stopped',
  breaker_no_diff: 'stopped',
  rate_limited: 'stopped',
  usage_limit: 'stopped',
  stopped_by_user: 'stopped',
  other_reached_threshold: 'stopped',
  auth_error: 'failed',
  setup_failed: 'failed',
  infrastructure_failed: 'failed',
  provider_failed: 'failed',
  internal_error: 'failed',
  worktree_replaced: 'failed',
  cancelled: 'cancelled',
};

export interface FinalVerdict {
  readonly status: FinalStatus;
  readonly reason: StopReason;
  readonly message?: string;
}

/**
 * The candidate's status from why its loop ended. When the loop simply ran its course but
 * the agent's last call did not succeed, nothing better explains the end: its committed
 * work is still scored and may win, but the candidate shows as failed with the agent's message.
 */
export function finalVerdict(stop: Stop, last: { readonly outcome: Outcome | undefined; readonly message: string | undefined }): FinalVerdict {
  if (stop.reason === 'completed' && last.outcome !== undefined && last.outcome !== 'success') {
    return { status: 'failed', reason: 'provider_failed', message: stop.message ?? last.message ?? `the agent ended with ${last.outcome}` };
  }
  return { status: STATUS_OF_REASON[stop.reason], reason: stop.reason, ...(stop.message === undefined ? {} : { message: stop.message }) };
}
