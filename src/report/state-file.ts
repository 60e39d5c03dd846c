/**
 * state.json: the run's state (the fold of its events) as a snapshot for people and tools
 * that want one file. It is written atomically (readers see the old or the new file, never a
 * mix), at most once per `intervalMs` while the run goes, and at once when the run finishes.
 *
 * Nothing reads it back to continue a run: `bestof resume` folds events.jsonl, which holds
 * every event, so a snapshot that lags by a fraction of a second after a kill -9 loses nothing.
 * Rewriting it after every event made the writes grow with the square of the candidates.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent, RunEventListener } from '../engine/events.js';
import { STATE_FILE } from '../engine/run-folder.js';
import { initialRunState, reduceRunState, type RunState } from '../engine/run-state.js';

export interface StateFileOptions {
  /** The state a resumed run starts from. @default the initial state */
  readonly initial?: RunState;
  /** The shortest time between two writes while the run goes. @default 250 */
  readonly intervalMs?: number;
}

export interface StateFileWriter {
  readonly listener: RunEventListener;
  /** How many times the file was written (for tests and benchmarks). */
  readonly writes: () => number;
  /** Writes what is pending and stops the timer. */
  close(): void;
}

/** Writes a file so that readers see either the old or the new content, never a mix. */
export function writeFileAtomic(path: string, content: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
}

export function createStateFileWriter(runDir: string, options: StateFileOptions = {}): StateFileWriter {
  const intervalMs = options.intervalMs ?? 250;
  const path = join(runDir, STATE_FILE);
  let state = options.initial ?? initialRunState();
  let dirty = false;
  let lastWrite = 0;
  let timer: NodeJS.Timeout | undefined;
  let writes = 0;

  const write = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!dirty) return;
    writeFileAtomic(path, JSON.stringify(state, null, 2));
    dirty = false;
    lastWrite = Date.now();
    writes += 1;
  };

  return {
    listener: (event: RunEvent) => {
      state = reduceRunState(state, event);
      dirty = true;
      if (event.type === 'run.finished') return write();
      const wait = lastWrite + intervalMs - Date.now();
      if (wait <= 0) return write();
      // A trailing write, so that the last events of a quiet stretch reach the file too.
      // unref: a pending snapshot never keeps bestof alive; close() writes it.
      timer ??= setTimeout(write, wait).unref();
    },
    writes: () => writes,
    close: write,
  };
}
