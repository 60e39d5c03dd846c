import { describe, expect, it } from 'vitest';
import { NO_STREAKS, recordIteration, trippedBreaker } from '../../src/engine/loop/breaker.js';
import { initialLoopState, type LoopState } from '../../src/engine/loop/loop-state.js';
import {
  finalVerdict,
  STATUS_OF_REASON,
  STOP_REASONS,
  stopAfterIteration,
  stopBeforeIteration,
  stopBeforeStart,
  stopOutOfTime,
  type LoopLimits,
  type Surroundings,
} from '../../src/engine/loop/stop-rules.js';

const NOW = 1_000_000;

const limits: LoopLimits = {
  maxIterations: 5,
  requestedIterations: 5,
  hardIterationLimit: 100,
  phaseCount: 0,
  scoreThreshold: 70,
  allowRegression: true,
  breaker: { sameFailureIterations: 3, errorIterations: 3, noDiffIterations: 3 },
  maxTotalCostUsd: 5,
  maxCandidateCostUsd: 2,
};

function state(over: Partial<LoopState> = {}): LoopState {
  return {
    ...initialLoopState({ maxScore: 100, scoreThreshold: 70, phases: [] }, { now: NOW, candidateDurationMs: undefined, runDeadline: undefined }),
    ...over,
  };
}

const feedback = (score: number, refuseReason?: string): LoopState['feedback'] => ({
  score,
  maxScore: 100,
  threshold: 70,
  failedChecks: [],
  outcome: 'success',
  tampered: [],
  ...(refuseReason ? { refuseReason } : {}),
});

describe('stopBeforeIteration', () => {
  it('nothing stops a fresh candidate', () => {
    expect(stopBeforeIteration(state(), limits, NOW)).toBeUndefined();
  });

  it('reports the first rule that holds, in order of precedence', () => {
    // Every rule holds; take them away one at a time from the top.
    let s = state({ stopRequested: true, runDeadline: NOW, candidateDeadline: NOW, iteration: 5 });
    let around: Surroundings = { aborted: true, budgetBlocked: 'budget_total' };
    const reported: (string | undefined)[] = [];
    const look = (): void => void reported.push(stopBeforeIteration(s, limits, NOW, around)?.reason);
    look();
    around = { ...around, aborted: false };
    look();
    s = { ...s, stopRequested: false };
    look();
    s = { ...s, runDeadline: undefined };
    look();
    s = { ...s, candidateDeadline: undefined };
    look();
    around = { aborted: false, budgetBlocked: 'budget_candidate' };
    look();
    around = { aborted: false };
    look();
    s = { ...s, iteration: 4 };
    look();
    expect(reported).toEqual([
      'cancelled',
      'stopped_by_user',
      'run_duration',
      'candidate_duration',
      'budget_total',
      'budget_candidate',
      'max_iterations',
      undefined,
    ]);
  });

  it('says which budget is spent and that the work is kept', () => {
    expect(stopBeforeIteration(state(), limits, NOW, { aborted: false, budgetBlocked: 'budget_total' })?.message).toBe(
      "the run's budget (max_total_cost_usd = $5) is spent; no new work starts and what was done is kept",
    );
    expect(stopBeforeIteration(state(), limits, NOW, { aborted: false, budgetBlocked: 'budget_candidate' })?.message).toBe(
      "this candidate's budget (max_candidate_cost_usd = $2) is spent; what it did is kept",
    );
  });

  it('one iteration asked for ends as completed; past the hard limit as hard_limit', () => {
    expect(stopBeforeIteration(state({ iteration: 1 }), { ...limits, maxIterations: 1, requestedIterations: 1 }, NOW)?.reason).toBe('completed');
    expect(stopBeforeIteration(state({ iteration: 100 }), { ...limits, maxIterations: 100, requestedIterations: 150 }, NOW)).toEqual({
      reason: 'hard_limit',
      message: 'stopped at the hard limit of 100 iterations (the spec asked for 150)',
    });
  });

  it('phases that have all run end the loop as max_iterations', () => {
    expect(stopBeforeIteration(state({ phase: { index: 2, usedInPhase: 0 } }), { ...limits, phaseCount: 2 }, NOW)?.reason).toBe('max_iterations');
    expect(stopBeforeIteration(state({ phase: { index: 1, usedInPhase: 0 } }), { ...limits, phaseCount: 2 }, NOW)).toBeUndefined();
  });

  it('a deadline in the future does not stop', () => {
    expect(stopBeforeIteration(state({ runDeadline: NOW + 1, candidateDeadline: NOW + 1 }), limits, NOW)).toBeUndefined();
  });
});

describe('stopBeforeStart and stopOutOfTime', () => {
  it('a run past its time limit does not start a candidate', () => {
    expect(stopBeforeStart({ runDeadline: NOW }, NOW)?.reason).toBe('run_duration');
    expect(stopBeforeStart({ runDeadline: NOW + 1 }, NOW)).toBeUndefined();
  });

  it('names the limit that was reached, the run first', () => {
    expect(stopOutOfTime({ candidateDeadline: NOW, runDeadline: NOW }, NOW)).toEqual({
      reason: 'run_duration',
      message: 'the run time limit was reached; what it wrote is kept',
    });
    expect(stopOutOfTime({ candidateDeadline: NOW, runDeadline: undefined }, NOW)?.reason).toBe('candidate_duration');
    expect(stopOutOfTime({ candidateDeadline: NOW + 5, runDeadline: undefined }, NOW)).toBeUndefined();
    expect(stopOutOfTime({ candidateDeadline: undefined, runDeadline: undefined }, NOW)).toBeUndefined();
  });
});

describe('stopAfterIteration', () => {
  it('threshold: reached with points to earn, unless the reviewer refused', () => {
    expect(stopAfterIteration(state({ iteration: 1, lastScore: 70, feedback: feedback(70) }), limits)?.reason).toBe('threshold_reached');
    expect(stopAfterIteration(state({ iteration: 1, lastScore: 69, feedback: feedback(69) }), limits)).toBeUndefined();
    expect(stopAfterIteration(state({ iteration: 1, lastScore: 100, feedback: feedback(100, 'no tests') }), limits)).toBeUndefined();
    // No points to earn at all (no checks): a score of 0 is not "reached".
    expect(
      stopAfterIteration(state({ iteration: 1, lastScore: 0, feedback: { ...feedback(0)!, maxScore: 0 } }), { ...limits, scoreThreshold: 0 }),
    ).toBeUndefined();
  });

  it('regression: only with allow_regression = false, from iteration 2, on a drop', () => {
    const dropped = state({ iteration: 2, previousScore: 60, lastScore: 30, feedback: feedback(30) });
    expect(stopAfterIteration(dropped, limits)).toBeUndefined();
    expect(stopAfterIteration(dropped, { ...limits, allowRegression: false })).toEqual({
      reason: 'regression',
      message: 'the score dropped from 60 to 30 (allow_regression = false)',
    });
    expect(stopAfterIteration({ ...dropped, iteration: 1 }, { ...limits, allowRegression: false })).toBeUndefined();
    expect(stopAfterIteration({ ...dropped, lastScore: 60 }, { ...limits, allowRegression: false })).toBeUndefined();
  });

  it('threshold wins over regression, regression over the breaker', () => {
    const tripped = { sameFailure: 3, lastFingerprint: 'p1', errors: 3, noDiff: 3 };
    const noRegression = { ...limits, allowRegression: false, scoreThreshold: 20 };
    expect(stopAfterIteration(state({ iteration: 2, previousScore: 60, lastScore: 30, feedback: feedback(30), breaker: tripped }), noRegression)?.reason).toBe(
      'threshold_reached',
    );
    expect(stopAfterIteration(state({ iteration: 2, previousScore: 60, lastScore: 10, feedback: feedback(10), breaker: tripped }), noRegression)?.reason).toBe(
      'regression',
    );
    expect(stopAfterIteration(state({ iteration: 2, previousScore: 0, lastScore: 10, feedback: feedback(10), breaker: tripped }), noRegression)).toEqual({
      reason: 'breaker_errors',
      message: 'the agent failed 3 iterations in a row',
    });
  });

  it('breakers: errors, then the same failure, then no diff', () => {
    const at = (breaker: LoopState['breaker']) => stopAfterIteration(state({ iteration: 3, lastScore: 10, feedback: feedback(10), breaker }), limits);
    expect(at({ sameFailure: 3, lastFingerprint: 'p1', errors: 0, noDiff: 3 })).toEqual({
      reason: 'breaker_same_failure',
      message: 'the same checks failed 3 iterations in a row',
    });
    expect(at({ sameFailure: 0, lastFingerprint: undefined, errors: 0, noDiff: 3 })).toEqual({
      reason: 'breaker_no_diff',
      message: '3 iterations in a row changed nothing',
    });
    expect(at({ sameFailure: 2, lastFingerprint: 'p1', errors: 2, noDiff: 2 })).toBeUndefined();
  });
});

describe('the breaker counts', () => {
  it('counts streaks and resets them', () => {
    let counts = NO_STREAKS;
    counts = recordIteration(counts, { outcome: 'crashed', failedChecks: ['b', 'a'], changed: false });
    counts = recordIteration(counts, { outcome: 'refusal', failedChecks: ['a', 'b'], changed: false });
    expect(counts).toMatchObject({ sameFailure: 2, errors: 2, noDiff: 2 });
    counts = recordIteration(counts, { outcome: 'max_turns', failedChecks: ['a'], changed: true });
    expect(counts).toMatchObject({ sameFailure: 1, errors: 0, noDiff: 0 });
    counts = recordIteration(counts, { outcome: 'timeout', failedChecks: [], changed: true });
    expect(counts).toMatchObject({ sameFailure: 0, errors: 1, noDiff: 0, lastFingerprint: undefined });
    expect(trippedBreaker({ ...counts, errors: 3 }, limits.breaker)).toBe('breaker_errors');
  });

  it('a resumed candidate keeps its streaks from the history', () => {
    const check = { name: 'p1', passed: false, points: 0, maxPoints: 10, exitCode: 1, timedOut: false, durationMs: 1, outputTail: '' };
    const history = [1, 2].map((iteration) => ({ iteration, outcome: 'crashed' as const, score: 10, checks: [check], tampered: [] }));
    const resumed = initialLoopState(
      { maxScore: 100, scoreThreshold: 70, phases: [] },
      { now: NOW, candidateDurationMs: 60_000, runDeadline: undefined, history, elapsedMs: 10_000 },
    );
    expect(resumed).toMatchObject({ iteration: 2, lastScore: 10, breaker: { errors: 2, sameFailure: 2, noDiff: 2 }, candidateDeadline: NOW + 50_000 });
    expect(resumed.feedback).toMatchObject({ score: 10, outcome: 'crashed', failedChecks: [check] });
  });
});

describe('the final status', () => {
  it('every stop reason has a status', () => {
    expect(Object.keys(STATUS_OF_REASON).sort()).toEqual([...STOP_REASONS].sort());
  });

  it('a loop that ran its course after a failed agent call ends as provider_failed', () => {
    expect(finalVerdict({ reason: 'completed' }, { outcome: 'crashed', message: 'exit 1' })).toEqual({
      status: 'failed',
      reason: 'provider_failed',
      message: 'exit 1',
    });
    expect(finalVerdict({ reason: 'completed' }, { outcome: 'crashed', message: undefined }).message).toBe('the agent ended with crashed');
    expect(finalVerdict({ reason: 'completed' }, { outcome: 'success', message: undefined })).toEqual({ status: 'done', reason: 'completed' });
    expect(finalVerdict({ reason: 'max_iterations' }, { outcome: 'crashed', message: 'x' })).toEqual({ status: 'done', reason: 'max_iterations' });
    expect(finalVerdict({ reason: 'auth_error', message: 'log in' }, { outcome: 'auth_error', message: 'log in' })).toEqual({
      status: 'failed',
      reason: 'auth_error',
      message: 'log in',
    });
  });
});
