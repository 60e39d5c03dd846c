/**
 * `bestof ls`'s line for a run (src/report/run-list-line.ts): an interrupted run shows the time
 * from its start to its last event, marked as interrupted, never "0ms".
 */
import { describe, expect, it } from 'vitest';
import type { EventOf } from '../../src/engine/record/events.js';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { runListLine } from '../../src/report/run-list-line.js';
import { candidate, finishedRun, runStarted, stamp, T0 } from '../ui/scripted-runs.js';

describe('a run in `bestof ls`', () => {
  it('interrupted: the time to its last event, "interrupted", and how to go on with it', () => {
    // Killed after its 15th event (one second apart): no run.finished.
    const state = foldEvents(finishedRun().slice(0, 15));
    expect(runListLine('r1', state, { alive: false })).toBe(
      'r1  demo             interrupted  3 candidates      14s  (to its last event; `bestof resume r1` goes on with it)',
    );
  });

  it('running: the time so far', () => {
    const state = foldEvents(finishedRun().slice(0, 15));
    expect(runListLine('r1', state, { alive: true })).toBe('r1  demo             running      3 candidates      14s  (so far)');
  });

  it('finished: its status, duration and winner; one candidate is "1 candidate"', () => {
    expect(runListLine('r1', foldEvents(finishedRun()), { alive: false })).toBe(
      'r1  demo             winner       3 candidates     6.1s  winner c1 (thorough)',
    );
    const one = foldEvents(
      stamp([
        runStarted([candidate(1, 'solo')]),
        { type: 'run.finished', status: 'no_winner', exitCode: 1, winner: undefined, durationMs: 2500, message: 'no candidate passed' },
      ]),
    );
    expect(runListLine('r2', one, { alive: false })).toBe('r2  demo             no_winner    1 candidate      2.5s');
  });

  it('with a winner chosen in the compare view: that winner, and who chose it', () => {
    const choice: EventOf<'winner.chosen'> = {
      t: new Date(T0 + 600_000).toISOString(),
      type: 'winner.chosen',
      candidate: 'c2',
      previous: 'c1',
      mode: 'branch',
      ok: true,
      branch: 'bestof/r1/c2',
      message: "the winner's work is on branch bestof/r1/c2",
      by: 'user',
    };
    expect(runListLine('r1', foldEvents([...finishedRun(), choice]), { alive: false })).toBe(
      'r1  demo             winner       3 candidates     6.1s  winner c2 (hasty), chosen by you in the compare view, instead of c1',
    );
  });
});
