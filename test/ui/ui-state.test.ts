/** The UI's pure reducer, fed scripted RunEvent arrays. */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/record/events.js';
import {
  ACTIVITY_LOG_LINES,
  initialUiState,
  reduceUiAction,
  reduceUiEvent,
  reduceUiEvents,
  selectionOrder,
  type UiAction,
  type UiState,
} from '../../src/ui/state/ui-state.js';
import { candidate, DIFF_C2, finishedRun, mixedRun, runStarted, stamp, T0 } from './scripted-runs.js';

const fold = (events: readonly RunEvent[], state: UiState = initialUiState({ mode: 'live', now: T0 })): UiState => events.reduce(reduceUiEvent, state);
const act = (state: UiState, ...actions: UiAction[]): UiState => actions.reduce(reduceUiAction, state);

describe('reduceUiEvent', () => {
  it('folds a run with candidates in mixed states, through the engine reducer', () => {
    const state = fold(mixedRun());
    const { candidates, order } = state.run;
    expect(order).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(order.map((id) => candidates[id]?.status)).toEqual(['done', 'running', 'failed', 'queued']);
    expect(candidates.c2?.score).toBe(40);
    expect(candidates.c2?.iteration).toBe(2);
    expect(candidates.c3?.reason).toBe('auth_error');
    expect(state.run.costUsd).toBeCloseTo(0.026);
    expect(state.selected).toBe('c1');
    expect(state.view).toBe('dashboard');
  });

  it("keeps an ANSI-free activity log per candidate, with the other events in the plain reporter's words", () => {
    const state = fold(mixedRun());
    const log = state.activity.c1 ?? [];
    expect(log.slice(0, 2)).toEqual(['· setup', '· running (iteration 1)']);
    expect(log).toContain('Reading configs/demo/test');
    expect(log).toContain('· check edges: pass (30/30, 320ms)');
    expect(log.join('\n')).not.toMatch(/\u001b|\r/);
    expect(state.activity.c4).toBeUndefined();
  });

  it('bounds the activity log', () => {
    const many = Array.from({ length: ACTIVITY_LOG_LINES + 50 }, (_, i) => ({
      type: 'candidate.activity' as const,
      candidate: 'c1',
      iteration: 1,
      text: `line ${i}`,
    }));
    const state = fold(stamp([runStarted([candidate(1, 'a')]), ...many]));
    const log = state.activity.c1 ?? [];
    expect(log).toHaveLength(ACTIVITY_LOG_LINES);
    expect(log[log.length - 1]).toBe(`line ${ACTIVITY_LOG_LINES + 49}`);
    expect(log[0]).toBe('line 50');
  });

  it("folds a batch of events (one frame's worth) exactly as it folds them one by one", () => {
    const events = [
      ...mixedRun(),
      ...stamp(
        Array.from({ length: ACTIVITY_LOG_LINES + 10 }, (_, i) => ({ type: 'candidate.activity' as const, candidate: 'c2', iteration: 2, text: `step ${i}` })),
      ),
    ];
    const initial = initialUiState({ mode: 'live', now: T0 });
    const batched = reduceUiEvents(reduceUiEvents(initial, events.slice(0, 7)), events.slice(7));
    expect(batched).toEqual(fold(events));
  });

  it('remembers when each candidate left the queue, for its elapsed time', () => {
    const state = fold(mixedRun());
    expect(state.activeSince.c1).toBe(T0 + 1000);
    expect(state.activeSince.c2).toBe(T0 + 2000);
    expect(state.activeSince.c4).toBeUndefined();
  });

  it('turns into the compare view when the run finishes, with the winner selected', () => {
    const state = fold(finishedRun());
    expect(state.view).toBe('compare');
    expect(state.selected).toBe('c1');
    expect(state.exitRequested).toBe(false);
  });

  it('closes instead when the user had cancelled the run', () => {
    const events = finishedRun();
    const beforeEnd = fold(events.slice(0, -1));
    const cancelled = reduceUiEvent(act(beforeEnd, { type: 'cancel-requested' }), events[events.length - 1] as RunEvent);
    expect(cancelled.exitRequested).toBe(true);
  });
});

describe('reduceUiAction', () => {
  it('moves the selection within the list, in start order on the dashboard', () => {
    const state = fold(mixedRun());
    expect(act(state, { type: 'move-selection', delta: 1 }).selected).toBe('c2');
    expect(act(state, { type: 'move-selection', delta: -1 }).selected).toBe('c1');
    expect(act(state, { type: 'move-selection', delta: 10 }).selected).toBe('c4');
  });

  it('follows the ranking once the run is over', () => {
    const events = finishedRun();
    const ranking = events.find((e) => e.type === 'selection.finished');
    if (ranking?.type !== 'selection.finished') throw new Error('no ranking');
    const reversed = { ...ranking, ranking: [...ranking.ranking].reverse().map((r, i) => ({ ...r, rank: i + 1 })) };
    const state = fold(events.map((e) => (e === ranking ? reversed : e)));
    expect(selectionOrder(state.run, 'compare', state.mode)).toEqual(['c3', 'c2', 'c1']);
    expect(state.selected).toBe('c3');
    expect(act(state, { type: 'move-selection', delta: 1 }).selected).toBe('c2');
  });

  it('opens details and comes back to the dashboard while running, to the compare view after', () => {
    const live = act(fold(mixedRun()), { type: 'open-detail' });
    expect(live.view).toBe('detail');
    expect(act(live, { type: 'back' }).view).toBe('dashboard');
    const over = act(fold(finishedRun()), { type: 'open-detail' }, { type: 'back' });
    expect(over.view).toBe('compare');
  });

  it('scrolls a loaded diff within its length and jumps between files', () => {
    const state = act(fold(finishedRun()), { type: 'diff-loaded', candidate: 'c1', text: DIFF_C2 });
    const lines = DIFF_C2.trimEnd().split('\n').length;
    expect(act(state, { type: 'scroll-diff', delta: 3, viewport: 5 }).diffScroll).toBe(3);
    expect(act(state, { type: 'scroll-diff', delta: 100, viewport: 5 }).diffScroll).toBe(lines - 5);
    expect(act(state, { type: 'scroll-diff', delta: -4, viewport: 5 }).diffScroll).toBe(0);
    expect(act(state, { type: 'jump-file', delta: 1, viewport: 5 }).diffScroll).toBe(9);
    expect(act(state, { type: 'jump-file', delta: 1, viewport: 5 }, { type: 'jump-file', delta: -1, viewport: 5 }).diffScroll).toBe(0);
    expect(act(state, { type: 'move-selection', delta: 1 }).diffScroll).toBe(0);
  });

  it('types a message and cycles merge modes only in their own dialogs', () => {
    const state = fold(mixedRun());
    const typing = act(state, { type: 'open-dialog', dialog: { kind: 'message', candidate: 'c2', draft: '' } }, { type: 'edit-message', draft: 'use NFKD' });
    expect(typing.dialog).toEqual({ kind: 'message', candidate: 'c2', draft: 'use NFKD' });
    expect(act(state, { type: 'edit-message', draft: 'x' })).toBe(state);
    const choosing = act(
      fold(finishedRun()),
      { type: 'open-dialog', dialog: { kind: 'confirm-winner', candidate: 'c2', mode: 'branch' } },
      { type: 'cycle-merge-mode', delta: 1 },
    );
    expect(choosing.dialog).toMatchObject({ mode: 'pr' });
    expect(act(choosing, { type: 'cycle-merge-mode', delta: 1 }).dialog).toMatchObject({ mode: 'merge' });
  });

  it('clears a notice after a while on the live clock', () => {
    const state = act(fold(mixedRun()), { type: 'tick', now: T0 + 30_000 }, { type: 'notice', notice: { text: 'stop requested', tone: 'info' } });
    expect(act(state, { type: 'tick', now: T0 + 32_000 }).notice?.text).toBe('stop requested');
    expect(act(state, { type: 'tick', now: T0 + 37_000 }).notice).toBeUndefined();
  });

  it('records a chosen winner and its merge result', () => {
    const state = act(
      fold(finishedRun()),
      { type: 'winner-pending', candidate: 'c2', mode: 'squash' },
      { type: 'winner-result', candidate: 'c2', ok: true, message: 'merged' },
    );
    expect(state.choice).toEqual({ candidate: 'c2', mode: 'squash', ok: true, message: 'merged' });
    expect(state.notice).toMatchObject({ text: 'merged', tone: 'ok' });
  });
});
