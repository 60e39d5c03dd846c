/**
 * The activity sampler on an injected clock: the burst of each call passes, then the newest
 * line of each window, a cap per candidate over the run, and one note for what was left out.
 */
import { describe, expect, it } from 'vitest';
import { ACTIVITY_SAMPLING, createActivitySampler, type ActivitySampler } from '../../src/engine/loop/activity-sampler.js';

function clocked(options: { burst?: number; intervalMs?: number; maxLines?: number } = {}): { sampler: ActivitySampler; advance(ms: number): void } {
  let now = 1_000;
  return { sampler: createActivitySampler({ now: () => now, ...options }), advance: (ms) => (now += ms) };
}

const note = (count: number): string => `${count} left out`;

/** Offers lines `from`..`to - 1` at the current instant; returns what was recorded. */
function offerAll(sampler: ActivitySampler, from: number, to: number): string[] {
  const recorded: string[] = [];
  for (let i = from; i < to; i++) recorded.push(...sampler.offer(`line ${i}`));
  return recorded;
}

describe('the activity sampler', () => {
  it('records every line of an agent that prints a few lines, seconds apart, and adds no note', () => {
    const { sampler, advance } = clocked();
    const recorded: string[] = [];
    for (let i = 0; i < 120; i++) {
      recorded.push(...sampler.offer(`step ${i}`));
      advance(2_000);
    }
    recorded.push(...sampler.endCall(note));
    expect(recorded).toEqual(Array.from({ length: 120 }, (_, i) => `step ${i}`));
  });

  it('records the first lines of each call as they come, then holds the newest line until its window ends', () => {
    const { sampler, advance } = clocked({ burst: 3, intervalMs: 100 });
    expect(offerAll(sampler, 0, 3)).toEqual(['line 0', 'line 1', 'line 2']);
    // Inside the window: held, each replacing the one before.
    expect(offerAll(sampler, 3, 6)).toEqual([]);
    expect(sampler.dueAt()).toBe(1_100);
    advance(50);
    expect(sampler.tick()).toEqual([]);
    advance(50);
    expect(sampler.tick()).toEqual(['line 5']);
    expect(sampler.dueAt()).toBeUndefined();
    expect(sampler.tick()).toEqual([]);
  });

  it('records a line at once when its window has ended, and drops the older held one', () => {
    const { sampler, advance } = clocked({ burst: 0, intervalMs: 100 });
    expect(sampler.offer('a')).toEqual(['a']);
    expect(sampler.offer('b')).toEqual([]);
    advance(100);
    // The timer has not fired yet: the newer line wins over the held one.
    expect(sampler.offer('c')).toEqual(['c']);
    expect(sampler.dueAt()).toBeUndefined();
    expect(sampler.endCall(note)).toEqual(['1 left out']);
  });

  it("ends a call with a note of how many lines were left out, then the call's last line", () => {
    const { sampler } = clocked({ burst: 2, intervalMs: 100 });
    expect(offerAll(sampler, 0, 1_000)).toEqual(['line 0', 'line 1']);
    expect(sampler.endCall(note)).toEqual(['997 left out', 'line 999']);
    // Nothing is held over into the next call.
    expect(sampler.dueAt()).toBeUndefined();
  });

  it('gives every call a new burst, in the same window', () => {
    const { sampler } = clocked({ burst: 2, intervalMs: 100 });
    offerAll(sampler, 0, 10);
    sampler.endCall(note);
    expect(offerAll(sampler, 10, 13)).toEqual(['line 10', 'line 11']);
  });

  it("stops at the cap per candidate, over every call; past it only each call's last line and note are recorded", () => {
    const { sampler, advance } = clocked({ burst: 4, intervalMs: 100, maxLines: 6 });
    expect(offerAll(sampler, 0, 4)).toEqual(['line 0', 'line 1', 'line 2', 'line 3']);
    expect(sampler.endCall(note)).toEqual([]);
    expect(offerAll(sampler, 4, 10)).toEqual(['line 4', 'line 5']);
    advance(1_000);
    // Capped: a window that ended no longer lets a line through, and no timer is asked for.
    expect(offerAll(sampler, 10, 20)).toEqual([]);
    expect(sampler.dueAt()).toBeUndefined();
    expect(sampler.tick()).toEqual([]);
    expect(sampler.endCall(note)).toEqual(['13 left out', 'line 19']);
    // The next call, still capped.
    advance(1_000);
    expect(offerAll(sampler, 20, 25)).toEqual([]);
    expect(sampler.endCall(note)).toEqual(['4 left out', 'line 24']);
  });

  it('keeps a flood of 600,000 lines to a bounded record with the default numbers', () => {
    let now = 0;
    const sampler = createActivitySampler({ now: () => now });
    let recorded = 0;
    for (let i = 0; i < 600_000; i++) {
      recorded += sampler.offer(`line ${i}`).length;
      // 10,000 lines a second: a minute of flood, with the timer firing when due.
      now += 0.1;
      const due = sampler.dueAt();
      if (due !== undefined && now >= due) recorded += sampler.tick().length;
    }
    const end = sampler.endCall(note);
    recorded += end.length;
    // The burst, then four lines a second for a minute, the note and the last line.
    expect(recorded).toBeLessThanOrEqual(ACTIVITY_SAMPLING.burst + 4 * 60 + 2 + 2);
    expect(recorded).toBeGreaterThan(ACTIVITY_SAMPLING.burst + 4 * 59);
    expect(end.at(-1)).toBe('line 599999');
  });

  it('refuses limits that are not non-negative integers', () => {
    expect(() => createActivitySampler({ now: () => 0, intervalMs: -1 })).toThrow(/intervalMs -1/);
  });
});
