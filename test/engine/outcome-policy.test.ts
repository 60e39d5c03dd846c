import { describe, expect, it } from 'vitest';
import { OUTCOME_POLICY, planWait, type CallPolicy } from '../../src/engine/loop/outcome-policy.js';
import { buildIterationPrompt } from '../../src/engine/loop/prompts.js';
import { OUTCOMES, type Outcome } from '../../src/providers/types.js';

const summary = (outcome: Outcome): string => {
  const p = OUTCOME_POLICY[outcome];
  const call = p.call.kind === 'stop' ? `stop:${p.call.reason}` : p.call.kind === 'wait_and_retry' ? `wait:${p.call.wait}->${p.call.giveUp}` : p.call.kind;
  return `${call} iteration=${p.countsAsIteration} error=${p.breakerError} note=${p.promptNote !== undefined}`;
};

describe('the outcome table', () => {
  it('has exactly one row per outcome', () => {
    expect(Object.keys(OUTCOME_POLICY).sort()).toEqual([...OUTCOMES].sort());
  });

  // The whole policy in one place: a change to what an outcome does is a change here.
  it('says what each outcome does', () => {
    expect(Object.fromEntries(OUTCOMES.map((o) => [o, summary(o)]))).toEqual({
      success: 'proceed iteration=true error=false note=false',
      max_turns: 'proceed iteration=true error=false note=true',
      max_tokens: 'proceed iteration=true error=false note=true',
      refusal: 'proceed iteration=true error=true note=true',
      context_overflow: 'proceed iteration=true error=false note=true',
      rate_limited: 'wait:backoff->rate_limited iteration=false error=false note=false',
      usage_limit: 'wait:reset_time->usage_limit iteration=false error=false note=false',
      auth_error: 'stop:auth_error iteration=true error=false note=false',
      timeout: 'proceed_unless_out_of_time iteration=true error=true note=true',
      crashed: 'proceed iteration=true error=true note=true',
      cancelled: 'stop:cancelled iteration=true error=false note=false',
    });
  });

  it('an outcome that waits and retries never uses up the iteration', () => {
    for (const outcome of OUTCOMES) {
      expect(OUTCOME_POLICY[outcome].countsAsIteration, outcome).toBe(OUTCOME_POLICY[outcome].call.kind !== 'wait_and_retry');
    }
  });

  it.each(OUTCOMES.filter((o) => OUTCOME_POLICY[o].promptNote !== undefined))('the next prompt after %s says how the run ended', (outcome) => {
    const prompt = buildIterationPrompt({
      task: 'Do it.',
      iteration: 2,
      maxIterations: 3,
      messages: [],
      feedback: { score: 0, maxScore: 100, threshold: 100, failedChecks: [], outcome, outcomeMessage: 'exit 3', tampered: [] },
    });
    expect(prompt).toContain(`Your previous run ended early (${outcome}): ${OUTCOME_POLICY[outcome].promptNote} (exit 3).`);
  });

  it('success says nothing about how the run ended', () => {
    const prompt = buildIterationPrompt({
      task: 'Do it.',
      iteration: 2,
      maxIterations: 3,
      messages: [],
      feedback: { score: 0, maxScore: 100, threshold: 100, failedChecks: [], outcome: 'success', tampered: [] },
    });
    expect(prompt).not.toContain('ended early');
  });
});

describe('planWait', () => {
  const backoff = OUTCOME_POLICY.rate_limited.call as Extract<CallPolicy, { kind: 'wait_and_retry' }>;
  const reset = OUTCOME_POLICY.usage_limit.call as Extract<CallPolicy, { kind: 'wait_and_retry' }>;
  const base = { retryAfterMs: undefined, backoffMs: 1000, maxRateLimitWaits: 3, timeLeftMs: undefined, random: () => 0.5 };

  it('rate limits back off exponentially, with the provider retry-after as a floor', () => {
    expect(planWait(backoff, { ...base, attempt: 1 })).toEqual({ waitMs: 1000 });
    expect(planWait(backoff, { ...base, attempt: 3 })).toEqual({ waitMs: 4000 });
    expect(planWait(backoff, { ...base, attempt: 1, retryAfterMs: 7000 })).toEqual({ waitMs: 7000 });
  });

  it('rate limits give up past max_rate_limit_waits, before looking at the time', () => {
    expect(planWait(backoff, { ...base, attempt: 4, timeLeftMs: 1 })).toEqual({ giveUp: 'still rate-limited after 3 waits' });
  });

  it('usage limits wait for the reset only when it is known and inside the time limit', () => {
    expect(planWait(reset, { ...base, attempt: 1, retryAfterMs: 20 })).toEqual({ waitMs: 20 });
    expect(planWait(reset, { ...base, attempt: 9, retryAfterMs: 20 })).toEqual({ waitMs: 20 });
    expect(planWait(reset, { ...base, attempt: 1 })).toEqual({ giveUp: 'the usage limit gives no reset time' });
    expect(planWait(reset, { ...base, attempt: 1, retryAfterMs: 90_000, timeLeftMs: 60_000 })).toEqual({ giveUp: 'waiting 90s would pass the time limit' });
  });
});
