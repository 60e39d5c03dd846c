/**
 * The record of a run, as listeners of its events: the event log first (so that it holds an
 * event before any front end reacts to it), then the state snapshot and the reports. The CLI
 * wires these up beside the front end; the engine does not know they exist.
 */
import type { RunEventListener } from '../engine/events.js';
import type { RunState } from '../engine/run-state.js';
import { createEventLogWriter } from './event-log.js';
import { createReportWriter } from './report-files.js';
import { createStateFileWriter } from './state-file.js';

export interface RunRecord {
  readonly listeners: readonly RunEventListener[];
  /** Flushes the snapshot and closes the event log; safe to call twice. */
  close(): void;
}

export function createRunRecord(runDir: string, options: { readonly resume?: RunState } = {}): RunRecord {
  const eventLog = createEventLogWriter(runDir);
  const stateFile = createStateFileWriter(runDir, options.resume ? { initial: options.resume } : {});
  return {
    listeners: [eventLog.listener, stateFile.listener, createReportWriter(runDir, options.resume)],
    close: () => {
      stateFile.close();
      eventLog.close();
    },
  };
}
