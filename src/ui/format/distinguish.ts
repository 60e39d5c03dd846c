/**
 * The distinguish step (`[select.distinguish]`) in the terminal: its events as plain lines (the
 * plain reporter, `bestof show`'s log), and what the compare view shows of its result: the sentence
 * that says which rule decided, and each finalist's kept tests passed in the ranking table.
 */
import type { DistinguishEvent } from '../../distinguish/types.js';
import type { RunState } from '../../engine/record/run-state.js';

export function distinguishEventLine(event: DistinguishEvent): string {
  switch (event.type) {
    case 'distinguish.started':
      return `distinguish: asking a ${event.tester.kind} tester for tests that tell ${event.finalists.join(', ')} apart`;
    case 'distinguish.tester':
      if (event.error !== undefined) return `distinguish: the tester wrote no test: ${event.error}`;
      return `distinguish: the tester wrote ${event.tests.length} test file${event.tests.length === 1 ? '' : 's'}${event.reused ? ' (recorded before the interruption, reused)' : ''}${event.refused?.length ? `; left out: ${event.refused.map((r) => `${r.file} (${r.reason})`).join(', ')}` : ''}`;
    case 'distinguish.cross':
      return `distinguish: the finalists' own new test files, each run on the others: ${event.tests.length === 0 ? 'none' : event.tests.map((t) => `${t.id} ${t.path ?? t.file} (${t.author})`).join(', ')}`;
    case 'distinguish.run':
      return `distinguish: ${event.test} on ${event.target}: ${event.outcome.replace('_', ' ')}${event.reused ? ' (recorded, reused)' : ''}`;
    case 'distinguish.finished':
      return `distinguish: ${event.message}`;
    case 'distinguish.skipped':
      return `distinguish skipped: ${event.message}`;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

type DistinguishState = NonNullable<RunState['distinguish']>;

/** What the distinguishing tests say, as the compare view's line under the ranking shows it. */
export interface DistinguishText {
  readonly text: string;
  readonly tone: 'primary' | 'warning';
}

/**
 * The line's text: the sentence that says which rule decided (report.md's and report.html's
 * words, src/distinguish/rank.ts), or why the step did not decide.
 */
export function distinguishSummary(d: DistinguishState): DistinguishText {
  if (d.result) return { text: d.result.decided, tone: 'primary' };
  if (d.skipped) return { text: `skipped: ${d.skipped}`, tone: 'warning' };
  return { text: `did not finish (${d.runs.length} test run${d.runs.length === 1 ? '' : 's'} recorded)`, tone: 'warning' };
}

/** Whether the ranking table has the distinguishing tests' column: the step decided. */
export function distinguishDecided(run: RunState): boolean {
  return run.distinguish?.result !== undefined;
}

/** A finalist's cell, `7/8` (kept tests passed, of how many); `-` for a candidate the tests were not written for. */
export function distinguishCell(run: RunState, id: string): string {
  const entry = run.ranking.find((r) => r.candidate === id)?.distinguish;
  if (entry) return `${entry.passed}/${entry.of}`;
  const r = run.distinguish?.result;
  const passed = r?.passed[id];
  return r && passed !== undefined ? `${passed}/${r.kept.length}` : '-';
}
