/**
 * What run-state.ts folds beyond the run itself: a winner the user chose in the compare view
 * (winner.chosen), costs that no agent reported, and the duration of a run that never finished.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent, UnstampedEvent } from '../../src/engine/record/events.js';
import { costIsKnown, foldEvents } from '../../src/engine/record/run-state.js';
import { candidate, finishedRun, runStarted, stamp, T0, winnerChosen } from '../ui/scripted-runs.js';

const chosen = winnerChosen;

describe('an event of a type this bestof does not know (a newer one wrote it)', () => {
  it('is ignored: the state is the fold of the others', () => {
    const events = finishedRun();
    const unknown = { ...(events[1] as RunEvent), type: 'candidate.some_future_event' } as unknown as RunEvent;
    expect(foldEvents([...events.slice(0, 2), unknown, ...events.slice(2)])).toEqual(foldEvents(events));
  });
});

describe('winner.chosen', () => {
  it('makes the chosen candidate the winner, with its merge, and says who chose it', () => {
    const before = foldEvents(finishedRun());
    const after = foldEvents([...finishedRun(), chosen()]);
    expect(after.winner).toBe('c2');
    expect(after.merge).toEqual({ candidate: 'c2', mode: 'squash', ok: true, commit: 'd'.repeat(40), branch: 'bestof/r1/c2', message: chosen().message });
    expect(after.chosen).toEqual({ candidate: 'c2', previous: 'c1', mode: 'squash', ok: true, message: chosen().message, by: 'user', at: chosen().t });
    expect(after.message).toBe(`c2 (hasty) chosen by you in the compare view, instead of c1; ${chosen().message}`);
    expect([after.status, after.exitCode]).toEqual(['winner', 0]);
    // A choice after the run is not part of its duration.
    expect(after.durationMs).toBe(before.durationMs);
  });

  it('makes a run without a winner a run with one', () => {
    const events = finishedRun()
      .map((e): RunEvent => {
        if (e.type === 'selection.finished') return { ...e, winner: undefined, message: 'no candidate reached the threshold' };
        if (e.type === 'run.finished') return { ...e, status: 'no_winner', exitCode: 1, winner: undefined };
        return e;
      })
      .filter((e) => e.type !== 'merge.finished');
    const after = foldEvents([...events, chosen({ previous: undefined })]);
    expect([after.status, after.exitCode, after.winner]).toEqual(['winner', 0, 'c2']);
    expect(after.message).toContain('chosen by you in the compare view (the run had no winner)');
  });

  it('records a choice whose merge failed, and leaves the winner and its merge as they were', () => {
    const before = foldEvents(finishedRun());
    const after = foldEvents([...finishedRun(), chosen({ ok: false, commit: undefined, message: 'the checkout has uncommitted changes; nothing was merged' })]);
    expect([after.winner, after.merge, after.status, after.message]).toEqual([before.winner, before.merge, before.status, before.message]);
    expect(after.chosen).toMatchObject({ candidate: 'c2', ok: false, message: 'the checkout has uncommitted changes; nothing was merged' });
  });
});

describe('costs no agent reported', () => {
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const call = (id: string, costUsd: number, usage = zero): UnstampedEvent => ({
    type: 'provider.finished',
    candidate: id,
    iteration: 1,
    outcome: 'success',
    costUsd,
    usage,
    turns: 1,
    durationMs: 100,
  });

  it('are unknown for a command agent and for tokens at no cost (a model without a price), known otherwise', () => {
    const state = foldEvents(
      stamp([
        runStarted([
          candidate(1, 'claude', 'claude'),
          candidate(2, 'cmd', 'command'),
          candidate(3, 'unpriced', 'codex'),
          candidate(4, 'failed early', 'gemini'),
        ]),
        call('c1', 0.02, { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 }),
        call('c2', 0),
        call('c3', 0, { input: 5000, output: 300, cacheRead: 0, cacheWrite: 0 }),
        // A CLI that failed before its first request spent nothing: a real $0.
        call('c4', 0),
      ]),
    );
    expect(['c1', 'c2', 'c3', 'c4'].map((id) => costIsKnown(state.candidates[id] ?? {}))).toEqual([true, false, false, true]);
    expect(costIsKnown(state)).toBe(false);
    expect(state.costUsd).toBe(0.02);
  });

  it('stay unknown for a candidate once one call did not report, and are known in a run where every call did', () => {
    const state = foldEvents(
      stamp([
        runStarted([candidate(1, 'a', 'codex'), candidate(2, 'b', 'script')]),
        call('c1', 0, { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 }),
        call('c1', 0.5),
      ]),
    );
    expect(costIsKnown(state.candidates.c1 ?? {})).toBe(false);
    expect(costIsKnown(foldEvents(finishedRun()))).toBe(true);
    // A state.json written before the flag existed has no flag: its costs read as known.
    expect(costIsKnown({})).toBe(true);
  });
});

describe('the duration of a run', () => {
  it("is the time from its start to its last event while it has not finished (an interrupted run), and run.finished's once it has", () => {
    const events = finishedRun();
    const interrupted = events.filter((e) => e.type !== 'run.finished');
    const last = interrupted.at(-1) as RunEvent;
    expect(foldEvents(interrupted).durationMs).toBe(Date.parse(last.t) - T0);
    expect(foldEvents(interrupted).durationMs).toBeGreaterThan(0);
    expect(foldEvents(events).durationMs).toBe(6100);
  });
});
