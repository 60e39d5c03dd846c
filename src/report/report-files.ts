/** report.json and report.md, written once, when the run finishes, from the folded state. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent, RunEventListener } from '../engine/events.js';
import { initialRunState, reduceRunState, type RunState } from '../engine/run-state.js';
import { buildJsonReport, renderMarkdownReport } from './report.js';

export function createReportWriter(runDir: string, initial: RunState = initialRunState()): RunEventListener {
  let state = initial;
  return (event: RunEvent) => {
    state = reduceRunState(state, event);
    if (event.type === 'run.finished') writeReports(runDir, state);
  };
}

/** Both reports of a run from its state (also rewritten after the run, ./after-run.ts). */
export function writeReports(runDir: string, state: RunState): void {
  writeFileSync(join(runDir, 'report.json'), `${JSON.stringify(buildJsonReport(state), null, 2)}\n`);
  writeFileSync(join(runDir, 'report.md'), renderMarkdownReport(state));
}
