/**
 * The record of a run, as listeners of its events: the event log first (so that it holds an
 * event before any front end reacts to it), then the state snapshot and the reports. The CLI
 * wires these up beside the front end; the engine does not know they exist.
 */
import type { RunEventListener } from '../engine/record/events.js';
import type { RunState } from '../engine/record/run-state.js';
import { createEventLogWriter } from './event-log.js';
import { createReportWriter } from './report-files.js';
import { createStateFileWriter } from './state-file.js';

export interface RunRecord {
  readonly listeners: readonly RunEventListener[];
  /** Flushes the snapshot and closes the event log; safe to call twice. */
  close(): void;
}

export interface RunRecordOptions {
  readonly resume?: RunState;
  /**
   * The event log could not be written (a full disk): it takes no more events, and the run should
   * stop, its work committed, while git can still write. Said once.
   */
  readonly onLogFailure?: (error: Error) => void;
  /** report.json or report.md could not be written at the end; the log is complete. */
  readonly onReportFailure?: (error: Error) => void;
}

export function createRunRecord(runDir: string, options: RunRecordOptions = {}): RunRecord {
  const eventLog = createEventLogWriter(runDir, options.onLogFailure);
  const stateFile = createStateFileWriter(runDir, options.resume ? { initial: options.resume } : {});
  return {
    listeners: [eventLog.listener, stateFile.listener, createReportWriter(runDir, options.resume, options.onReportFailure)],
    close: () => {
      stateFile.close();
      eventLog.close();
    },
  };
}
