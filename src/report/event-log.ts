/**
 * events.jsonl: one event per line, the record of what happened. `show`, `ls`, `resume` and
 * the reports are all folds of it. Written synchronously through one open file descriptor:
 * the log must hold every event that happened before a crash or a kill -9 (the page cache
 * keeps what a killed process wrote), and opening the file per event costs more than the write.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunEvent, RunEventListener } from '../engine/events.js';
import { EVENT_LOG_FILE } from '../engine/run-folder.js';

export interface EventLogWriter {
  readonly listener: RunEventListener;
  close(): void;
}

/** Appends to `<runDir>/events.jsonl`; the file is opened on the first event (the engine creates the folder before it emits). */
export function createEventLogWriter(runDir: string): EventLogWriter {
  let fd: number | undefined;
  return {
    listener: (event: RunEvent) => {
      fd ??= openSync(join(runDir, EVENT_LOG_FILE), 'a');
      writeSync(fd, `${JSON.stringify(event)}\n`);
    },
    close: () => {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** Reads an event log; a torn last line (the process died mid-write) is skipped. */
export async function readEvents(runDir: string): Promise<RunEvent[]> {
  const text = await readFile(join(runDir, EVENT_LOG_FILE), 'utf8');
  const events: RunEvent[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line) as RunEvent);
    } catch {
      // A partial line from an interrupted write: everything before it is intact.
    }
  }
  return events;
}
