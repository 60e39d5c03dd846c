/** report.json and report.md, written once, when the run finishes, from the folded state. */
import { join } from 'node:path';
import { REPORT_JSON_FILE, REPORT_MD_FILE } from '../engine/record/run-folder.js';
import type { RunEvent, RunEventListener } from '../engine/record/events.js';
import { initialRunState, reduceRunState, type RunState } from '../engine/record/run-state.js';
import { renderJsonReport, renderMarkdownReport } from './report.js';
import { writeFileAtomic } from './state-file.js';

/**
 * Writes report.json and report.md when the run finishes. One that cannot be written (a full disk)
 * is said through `onFailure` and never fails the run: the event log holds everything, and
 * `bestof show` rebuilds the report from it.
 */
export function createReportWriter(
  runDir: string,
  initial: RunState = initialRunState(),
  onFailure: (error: Error) => void = () => undefined,
): RunEventListener {
  let state = initial;
  return (event: RunEvent) => {
    state = reduceRunState(state, event);
    if (event.type !== 'run.finished') return;
    try {
      writeReports(runDir, state);
    } catch (error) {
      onFailure(error as Error);
    }
  };
}

/** Both reports of a run from its state (also rewritten after the run, ./after-run.ts). */
export function writeReports(runDir: string, state: RunState): void {
  // Atomic, each: a report cut short by a full disk would be a JSON file that does not parse.
  writeFileAtomic(join(runDir, REPORT_JSON_FILE), renderJsonReport(state));
  writeFileAtomic(join(runDir, REPORT_MD_FILE), renderMarkdownReport(state));
}
