/**
 * What an agent prints, sampled before it becomes `candidate.activity` events.
 *
 * One event per line made 50 MB of agent output into a 112 MB events.jsonl, 52 MB on
 * bestof's stdout and minutes of `show`. The raw stream is kept elsewhere (the call's
 * output.log, itself capped); the record keeps what a person reads:
 *
 * - the first `burst` lines of each agent call, as they come (how a call starts says what it set out to do);
 * - then at most one line per `intervalMs`, and the newest line of each window, not the first:
 *   the dashboard shows a candidate's latest line, so a held line is replaced by a newer one
 *   and recorded when its window ends (`dueAt`/`tick`);
 * - at most `maxLines` lines per candidate in a run; past that, only the last line of each call;
 * - when a call ends with lines left out, one line that says how many (before the call's last
 *   line if that one was still held, so that the agent's own last word stays the latest).
 *
 * Why these numbers keep the record of a normal run as it was: the lines of a real agent are
 * its tool calls and paragraphs of its answer, seconds apart, so none waits for a window of
 * 250 ms; a call that starts with a flurry (a listing, a test run's first lines) seldom prints
 * 50 lines at once; and a run of ten iterations of such calls records a few hundred lines,
 * far from 2,000. A flood is what these limits meet: 2,000 lines of at most 500 characters
 * is at most about 1 MB of events per candidate, whatever the agent prints.
 *
 * Pure: the clock is injected, and the caller sets the timer that calls `tick` at `dueAt`.
 */

export interface ActivitySamplerOptions {
  /** The clock, in milliseconds (monotonic is best). */
  readonly now: () => number;
  /** Lines of each agent call recorded as they come. @default 50 */
  readonly burst?: number;
  /** After the burst, at most one line per this many ms. @default 250 */
  readonly intervalMs?: number;
  /** Lines recorded per candidate in a run (the last line of each call and the notes of lines left out are not counted). @default 2000 */
  readonly maxLines?: number;
}

export interface ActivitySampler {
  /** A line the agent printed: the lines to record now (none, or this one). */
  offer(line: string): readonly string[];
  /** When the held line is due, on the sampler's clock; undefined when no line waits for a window to end. */
  dueAt(): number | undefined;
  /** The held line, once its window has ended (call it at `dueAt`). */
  tick(): readonly string[];
  /**
   * The agent call ended: a note of the lines left out (`note(count)`) if any, then the
   * call's last line if it was held. The next call starts with a new burst.
   */
  endCall(note: (linesLeftOut: number) => string): readonly string[];
}

export const ACTIVITY_SAMPLING = { burst: 50, intervalMs: 250, maxLines: 2000 } as const;

export function createActivitySampler(options: ActivitySamplerOptions): ActivitySampler {
  const { now } = options;
  const burst = options.burst ?? ACTIVITY_SAMPLING.burst;
  const intervalMs = options.intervalMs ?? ACTIVITY_SAMPLING.intervalMs;
  const maxLines = options.maxLines ?? ACTIVITY_SAMPLING.maxLines;
  if (![burst, intervalMs, maxLines].every((n) => Number.isInteger(n) && n >= 0)) {
    throw new Error(`bug: activity sampler limits must be non-negative integers, got burst ${burst}, intervalMs ${intervalMs}, maxLines ${maxLines}`);
  }

  // Over the run.
  let recorded = 0;
  let lastRecordedAt = Number.NEGATIVE_INFINITY;
  // Over the current call.
  let offeredInCall = 0;
  let recordedInCall = 0;
  let held: string | undefined;

  const record = (line: string): readonly string[] => {
    recorded += 1;
    recordedInCall += 1;
    lastRecordedAt = now();
    return [line];
  };
  const windowEnded = (): boolean => now() - lastRecordedAt >= intervalMs;

  return {
    offer(line) {
      offeredInCall += 1;
      if (recorded >= maxLines) {
        held = line;
        return [];
      }
      if (recordedInCall < burst || windowEnded()) {
        // The newest line wins: one held from the window that just ended is older than this one.
        held = undefined;
        return record(line);
      }
      held = line;
      return [];
    },
    dueAt() {
      return held !== undefined && recorded < maxLines ? lastRecordedAt + intervalMs : undefined;
    },
    tick() {
      if (held === undefined || recorded >= maxLines || !windowEnded()) return [];
      const line = held;
      held = undefined;
      return record(line);
    },
    endCall(note) {
      const last = held;
      const leftOut = offeredInCall - recordedInCall - (last === undefined ? 0 : 1);
      offeredInCall = 0;
      recordedInCall = 0;
      held = undefined;
      const lines: string[] = [];
      if (leftOut > 0) lines.push(note(leftOut));
      if (last !== undefined) lines.push(last);
      return lines;
    },
  };
}
