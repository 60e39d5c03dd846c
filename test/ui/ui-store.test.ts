/** The store batches events: however many arrive, at most ~15 snapshots a second are published. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createUiStore } from '../../src/ui/state/ui-store.js';
import { candidate, runStarted, stamp, T0 } from './scripted-runs.js';

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('createUiStore', () => {
  it('folds a burst of events into one frame', () => {
    const store = createUiStore({ mode: 'live', tickMs: 0 });
    const published = vi.fn();
    store.subscribe(published);
    const events = stamp([
      runStarted([candidate(1, 'a')]),
      ...Array.from({ length: 500 }, (_, i) => ({ type: 'candidate.activity' as const, candidate: 'c1', iteration: 1, text: `line ${i}` })),
    ]);
    for (const event of events) store.onEvent(event);
    expect(published).not.toHaveBeenCalled();
    vi.advanceTimersByTime(0);
    expect(published).toHaveBeenCalledTimes(1);
    expect(store.getSnapshot().run.candidates.c1?.lastActivity).toBe('line 499');
    store.dispose();
  });

  it('publishes at most 15 frames a second under a steady stream of events', () => {
    const store = createUiStore({ mode: 'live', tickMs: 0, maxFramesPerSecond: 15 });
    const published = vi.fn();
    store.subscribe(published);
    store.onEvent(stamp([runStarted([candidate(1, 'a')])])[0] as never);
    vi.advanceTimersByTime(0);
    published.mockClear();
    for (let ms = 0; ms < 1000; ms++) {
      store.onEvent(stamp([{ type: 'candidate.activity', candidate: 'c1', iteration: 1, text: `at ${ms}` }])[0] as never);
      vi.advanceTimersByTime(1);
    }
    expect(published.mock.calls.length).toBeGreaterThanOrEqual(12);
    expect(published.mock.calls.length).toBeLessThanOrEqual(16);
    store.dispose();
  });

  it('applies UI actions at once, so that keys typed within one frame all count', () => {
    const store = createUiStore({ mode: 'live', tickMs: 0 });
    store.onEvent(stamp([runStarted([candidate(1, 'a'), candidate(2, 'b')])])[0] as never);
    store.dispatch({ type: 'move-selection', delta: 1 });
    expect(store.getSnapshot().selected).toBe('c2');
    store.dispose();
  });

  it('ticks the clock while candidates are busy, and stops when the run ends', () => {
    const store = createUiStore({ mode: 'live', tickMs: 100 });
    for (const event of stamp([runStarted([candidate(1, 'a')]), { type: 'candidate.status', candidate: 'c1', status: 'running', iteration: 1 }]))
      store.onEvent(event);
    vi.advanceTimersByTime(1);
    const before = store.frames;
    vi.advanceTimersByTime(1000);
    expect(store.frames - before).toBeGreaterThanOrEqual(8);
    expect(store.getSnapshot().now).toBeGreaterThanOrEqual(T0 + 1000);
    store.onEvent(stamp([{ type: 'run.finished', status: 'cancelled', exitCode: 130, winner: undefined, durationMs: 1000, message: 'cancelled' }])[0] as never);
    vi.advanceTimersByTime(100);
    const after = store.frames;
    vi.advanceTimersByTime(2000);
    expect(store.frames).toBe(after);
    store.dispose();
  });
});
