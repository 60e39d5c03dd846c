/**
 * What the loop does with each outcome of an agent call, in one table the compiler checks
 * for completeness: a new Outcome in src/providers/types.ts does not build until it has a
 * row here. The agent call (./iteration.ts `callProvider`), the circuit breaker
 * (./breaker.ts) and the next prompt (./prompts.ts) read this table; none of them tests
 * outcomes one by one.
 */
import type { Outcome } from '../../providers/types.js';
import { backoffDelay } from './backoff.js';
import type { StopReason } from '../record/run-types.js';
import { plural } from '../words.js';

/** What happens right after the call returns. */
export type CallPolicy =
  /** The iteration goes on: commit, checks, review, score. */
  | { readonly kind: 'proceed' }
  /** As `proceed`, unless the candidate's or the run's time is up: then the candidate stops with that limit as its reason. */
  | { readonly kind: 'proceed_unless_out_of_time' }
  /**
   * Wait, then call again with the same prompt, inside the same iteration. `backoff`: the
   * exponential `loop.rate_limit_backoff` (the provider's retry-after is a floor), at most
   * `loop.max_rate_limit_waits` times. `reset_time`: exactly the provider's retry-after, only
   * when it gave one. A wait that is not possible, or would pass a time limit, stops the
   * candidate with `giveUp`.
   */
  | { readonly kind: 'wait_and_retry'; readonly wait: 'backoff' | 'reset_time'; readonly giveUp: 'rate_limited' | 'usage_limit' }
  /** The candidate ends at once (its work so far is committed and kept). */
  | { readonly kind: 'stop'; readonly reason: StopReason };

export interface OutcomePolicy {
  readonly call: CallPolicy;
  /** The call uses up the iteration; false: it is retried inside the same iteration after a wait. */
  readonly countsAsIteration: boolean;
  /** It counts towards `[breaker] error_iterations` (agent errors in a row). */
  readonly breakerError: boolean;
  /** What the next prompt says about how the previous run ended; undefined: nothing. */
  readonly promptNote: string | undefined;
}

export const OUTCOME_POLICY: Readonly<Record<Outcome, OutcomePolicy>> = {
  success: { call: { kind: 'proceed' }, countsAsIteration: true, breakerError: false, promptNote: undefined },
  max_turns: {
    call: { kind: 'proceed' },
    countsAsIteration: true,
    breakerError: false,
    promptNote: 'it used up its turns before it was done; continue from where it stopped',
  },
  max_tokens: {
    call: { kind: 'proceed' },
    countsAsIteration: true,
    breakerError: false,
    promptNote: 'its answer hit the output token limit; continue from where it stopped, in smaller pieces',
  },
  refusal: { call: { kind: 'proceed' }, countsAsIteration: true, breakerError: true, promptNote: 'the model declined to continue' },
  context_overflow: {
    call: { kind: 'proceed' },
    countsAsIteration: true,
    breakerError: false,
    promptNote: 'the conversation outgrew the context window; work in smaller steps and read only what you need',
  },
  rate_limited: {
    call: { kind: 'wait_and_retry', wait: 'backoff', giveUp: 'rate_limited' },
    countsAsIteration: false,
    breakerError: false,
    promptNote: undefined,
  },
  usage_limit: {
    call: { kind: 'wait_and_retry', wait: 'reset_time', giveUp: 'usage_limit' },
    countsAsIteration: false,
    breakerError: false,
    promptNote: undefined,
  },
  auth_error: { call: { kind: 'stop', reason: 'auth_error' }, countsAsIteration: true, breakerError: false, promptNote: undefined },
  timeout: {
    call: { kind: 'proceed_unless_out_of_time' },
    countsAsIteration: true,
    breakerError: true,
    promptNote: 'it was stopped at the time limit; what it had written was kept',
  },
  crashed: { call: { kind: 'proceed' }, countsAsIteration: true, breakerError: true, promptNote: 'the agent process failed' },
  cancelled: { call: { kind: 'stop', reason: 'cancelled' }, countsAsIteration: true, breakerError: false, promptNote: undefined },
};

export interface WaitInput {
  /** Waits in this iteration so far, this one included (rate and usage limits together). */
  readonly attempt: number;
  /** What the provider said to wait, when it said. */
  readonly retryAfterMs: number | undefined;
  /** `loop.rate_limit_backoff`. */
  readonly backoffMs: number;
  /** `loop.max_rate_limit_waits`. */
  readonly maxRateLimitWaits: number;
  /** Milliseconds to the nearest time limit; undefined when there is none. */
  readonly timeLeftMs: number | undefined;
  readonly random?: () => number;
}

export type WaitDecision = { readonly waitMs: number } | { readonly giveUp: string };

/** How long a `wait_and_retry` outcome waits, or why it cannot wait (the candidate then stops). */
export function planWait(policy: Extract<CallPolicy, { kind: 'wait_and_retry' }>, input: WaitInput): WaitDecision {
  const wait = policy.wait === 'backoff' ? backoffDelay(input.backoffMs, input.attempt, input.retryAfterMs, input.random) : input.retryAfterMs;
  const tooMany = policy.wait === 'backoff' && input.attempt > input.maxRateLimitWaits;
  if (tooMany) return { giveUp: `still rate-limited after ${plural(input.attempt - 1, 'wait')}` };
  if (wait === undefined) return { giveUp: 'the usage limit gives no reset time' };
  if (input.timeLeftMs !== undefined && wait >= input.timeLeftMs) return { giveUp: `waiting ${Math.round(wait / 1000)}s would pass the time limit` };
  return { waitMs: wait };
}
