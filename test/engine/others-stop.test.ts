/**
 * `[select] stop_others`: the stop rule (where it sits among the others), the fold of
 * run.stopping_others, the calls it spared as the reports count them, and the dashboard's line of a
 * candidate it stopped. The whole run through the binary is test/runs/stop-others.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { initialLoopState, type LoopState } from '../../src/engine/loop/loop-state.js';
import { OthersStop } from '../../src/engine/loop/others-stop.js';
import { stopBeforeIteration, stopBeforeStart, type LoopLimits, type Surroundings } from '../../src/engine/loop/stop-rules.js';
import { othersStopped, othersStoppedWords } from '../../src/engine/record/others-stopped.js';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { renderMarkdownReport } from '../../src/report/report.js';
import { formatEvent } from '../../src/ui/plain-reporter.js';
import { createOthersStop } from '../../src/engine/run/stages/threshold-stop.js';
import type { RunContext } from '../../src/engine/run/run-context.js';
import { renderRun, type Rendered } from '../ui/render-helpers.js';
import { candidate, finished, runStarted, stamp } from '../ui/scripted-runs.js';

const NOW = 1_000_000;
const limits: LoopLimits = {
  maxIterations: 3,
  requestedIterations: 3,
  hardIterationLimit: 100,
  phaseCount: 0,
  scoreThreshold: 100,
  allowRegression: true,
  breaker: { sameFailureIterations: 3, errorIterations: 3, noDiffIterations: 3 },
};
const loopState = (over: Partial<LoopState> = {}): LoopState => ({
  ...initialLoopState({ maxScore: 100, scoreThreshold: 100, phases: [] }, { now: NOW, candidateDurationMs: undefined, runDeadline: undefined }),
  ...over,
});
const reached: Surroundings = { aborted: false, otherReachedThreshold: { by: { candidate: 'c1', score: 100 }, keptAt: 'refs/bestof/r1/c2/kept' } };

describe('the stop rule', () => {
  it('stops a candidate at its boundary, naming who reached the threshold and where its work is', () => {
    expect(stopBeforeIteration(loopState({ iteration: 1 }), limits, NOW, reached)).toEqual({
      reason: 'other_reached_threshold',
      message: 'stopped: c1 reached the threshold (100 points) and select.stop_others = "on_threshold"; its work so far is kept on refs/bestof/r1/c2/kept',
    });
    expect(stopBeforeIteration(loopState({ iteration: 1 }), limits, NOW, { aborted: false })).toBeUndefined();
  });

  it('comes last: a candidate that would have stopped anyway keeps its own reason (and no call is counted as spared)', () => {
    expect(stopBeforeIteration(loopState({ iteration: 3 }), limits, NOW, reached)?.reason).toBe('max_iterations');
    expect(stopBeforeIteration(loopState({ iteration: 1 }), limits, NOW, { ...reached, budgetBlocked: 'budget_total' })?.reason).toBe('budget_total');
    expect(stopBeforeIteration(loopState({ iteration: 1, stopRequested: true }), limits, NOW, reached)?.reason).toBe('stopped_by_user');
  });

  it('a candidate still queued does not start', () => {
    expect(stopBeforeStart(loopState(), NOW, reached)).toEqual({
      reason: 'other_reached_threshold',
      message: 'stopped: c1 reached the threshold (100 points) and select.stop_others = "on_threshold"; it had not started, so it has no work to keep',
    });
    expect(stopBeforeStart(loopState(), NOW)).toBeUndefined();
  });

  it('the flag names the first candidate that reached the threshold, and a resume keeps it', () => {
    const flag = new OthersStop();
    expect(flag.by).toBeUndefined();
    expect(flag.reach({ candidate: 'c1', score: 100 })).toBe(true);
    expect(flag.reach({ candidate: 'c3', score: 100 })).toBe(false);
    expect(flag.by).toEqual({ candidate: 'c1', score: 100 });
    expect(new OthersStop({ candidate: 'c2', score: 90 }).by).toEqual({ candidate: 'c2', score: 90 });
  });
});

const cs = [candidate(1, 'fast'), candidate(2, 'slow'), candidate(3, 'slower'), candidate(4, 'queued')];
// What the loop says of a candidate it stops, as the dashboard and the reports get it.
const MESSAGE = stopBeforeIteration(loopState({ iteration: 1 }), limits, NOW, reached)?.message ?? '';
const events = stamp([
  runStarted(cs, { maxIterations: 3 }),
  finished('c1', 'done', 'threshold_reached', 100),
  { type: 'run.stopping_others', candidate: 'c1', score: 100, stopping: ['c2', 'c3', 'c4'] },
  // A second one (two loops ending at once) changes nothing: the first counts.
  { type: 'run.stopping_others', candidate: 'c3', score: 100, stopping: ['c2'] },
  finished('c2', 'stopped', 'other_reached_threshold', 40, { message: MESSAGE }),
  finished('c3', 'done', 'max_iterations', 70, { iterations: 3 }),
  finished('c4', 'stopped', 'other_reached_threshold', 0, { iterations: 0, message: MESSAGE }),
]);

describe('in the record and the reports', () => {
  it('folds the first run.stopping_others and counts, per stopped candidate, max_iterations less what it did', () => {
    const state = foldEvents(events);
    expect(state.stoppingOthers).toEqual({ candidate: 'c1', score: 100, stopping: ['c2', 'c3', 'c4'] });
    // c2 did 1 of 3, c4 none; c3 ended on its own and spared nothing.
    const stopped = othersStopped(state);
    expect(stopped).toEqual({ candidate: 'c1', score: 100, stopped: ['c2', 'c4'], callsNotMade: 5 });
    const words =
      'c1 reached the threshold first (100 points, select.stop_others = "on_threshold"): c2 and c4 were stopped after their current step; up to 5 agent calls not made';
    expect(stopped && othersStoppedWords(stopped)).toBe(words);
    expect(renderMarkdownReport(state)).toContain(`- stopped early: ${words}`);
  });

  it('a run without the key says nothing of it', () => {
    const state = foldEvents(events.filter((e) => e.type !== 'run.stopping_others'));
    expect(othersStopped(state)).toBeUndefined();
    expect(renderMarkdownReport(state)).not.toContain('stopped early');
  });

  it('the plain output says whom it stops', () => {
    const event = events.find((e) => e.type === 'run.stopping_others');
    expect(event && formatEvent(event)).toBe(
      'c1 reached the threshold with 100 points and can win: c2, c3, c4 finish their current step and start no new iteration (select.stop_others = "on_threshold")',
    );
  });
});

describe("the run's flag", () => {
  const context = (stopOthers: 'on_threshold' | 'never', resume?: RunContext['resume']): Pick<RunContext, 'plan' | 'resume'> =>
    ({ plan: { spec: { select: { stop_others: stopOthers } } }, resume }) as unknown as Pick<RunContext, 'plan' | 'resume'>;

  it('exists only with "on_threshold", and a resumed run keeps the stop its record says', () => {
    expect(createOthersStop(context('never'))).toBeUndefined();
    expect(createOthersStop(context('on_threshold'))?.by).toBeUndefined();
    expect(createOthersStop(context('on_threshold', foldEvents(events)))?.by).toEqual({ candidate: 'c1', score: 100 });
  });
});

describe("the dashboard's candidate line", () => {
  let ui: Rendered | undefined;
  afterEach(async () => {
    await ui?.unmount();
    ui = undefined;
  });

  it('says the candidate was stopped because another reached the threshold', async () => {
    ui = await renderRun(events, { columns: 200 });
    const row = ui
      .frame()
      .split('\n')
      .find((line) => line.includes('c2 slow'));
    expect(row).toContain('stopped: c1 reached the threshold (100 points)');
  });
});
