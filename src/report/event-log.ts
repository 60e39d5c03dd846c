/**
 * events.jsonl: one event per line, the record of what happened. `resume` and the reports are
 * folds of it (`ls` and `show` read its snapshot, state.json, when there is one). Written
 * synchronously through one open file descriptor: the log must hold every event that happened
 * before a crash or a kill -9 (the page cache keeps what a killed process wrote), and opening
 * the file per event costs more than the write. Read as a stream, never whole.
 */
import { appendFileSync, closeSync, createReadStream, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { RunEvent, RunEventListener } from '../engine/record/events.js';
import { EVENT_LOG_FILE } from '../engine/record/run-folder.js';
import { initialRunState, reduceRunState, type RunState } from '../engine/record/run-state.js';

export interface EventLogWriter {
  readonly listener: RunEventListener;
  close(): void;
}

/**
 * Appends to `<runDir>/events.jsonl`; the file is opened on the first event (the engine creates the
 * folder before it emits).
 *
 * A write that fails (a full disk: ENOSPC; a quota; an I/O error) never throws into the engine,
 * which emits from deep inside a candidate's loop: `onFailure` hears of it once, and the log takes
 * no more events, since a log with a hole in it would fold into a wrong state (the caller stops the
 * run: src/cli/run-session.ts). A log whose last line was torn (a process killed mid-write, or a
 * write cut short by a full disk) gets a newline before the next event, so that the torn line does
 * not swallow it.
 */
export function createEventLogWriter(runDir: string, onFailure: (error: Error) => void = () => undefined): EventLogWriter {
  let fd: number | undefined;
  let failed = false;
  return {
    listener: (event: RunEvent) => {
      if (failed) return;
      try {
        if (fd === undefined) {
          fd = openSync(join(runDir, EVENT_LOG_FILE), 'a+');
          if (!endsWithNewline(fd)) writeSync(fd, '\n');
        }
        writeSync(fd, `${JSON.stringify(event)}\n`);
      } catch (error) {
        failed = true;
        onFailure(error as Error);
      }
    },
    close: () => {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** True when the file is empty or its last byte is a newline. */
function endsWithNewline(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

/**
 * One event appended to the log of a run whose writer is closed or belongs to another process
 * (a choice made in the compare view after the run, ./after-run.ts). One write of one line in
 * append mode: it lands after every line already there, whole.
 */
export function appendEvent(runDir: string, event: RunEvent): void {
  appendFileSync(join(runDir, EVENT_LOG_FILE), `${JSON.stringify(event)}\n`);
}

/**
 * The events of a log in order, read as a stream: a log of 100 MB is never in memory at once.
 * A line that does not parse (a torn last line: the process died mid-write) is skipped;
 * everything before it is intact. So is a line that parses to no event (not an object with a
 * `type`): folded, it would throw.
 */
export async function* streamEvents(runDir: string): AsyncGenerator<RunEvent> {
  const input = createReadStream(join(runDir, EVENT_LOG_FILE), { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue;
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch {
        continue;
      }
      if (isEventLike(event)) yield event;
    }
  } finally {
    // A reader that stops early gives the file back at once.
    lines.close();
    input.destroy();
  }
}

/** An object with a string `type`: what the fold needs to tell an event's kind (null or a number would make it throw). */
function isEventLike(value: unknown): value is RunEvent {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { type?: unknown }).type === 'string';
}

/** Every event of a log (for tests and small logs; a fold should use foldEventLog). */
export async function readEvents(runDir: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of streamEvents(runDir)) events.push(event);
  return events;
}

/** The run's state as the fold of its whole log, streamed: memory holds the state, not the log. */
export async function foldEventLog(runDir: string): Promise<RunState> {
  let state = initialRunState();
  for await (const event of streamEvents(runDir)) state = reduceRunState(state, event);
  return state;
}
