/**
 * state.json: the run's state (the fold of its events) as a snapshot for people and tools
 * that want one file. It is written atomically (readers see the old or the new file, never a
 * mix), at most once per `intervalMs` while the run goes, and at once when the run finishes.
 *
 * Nothing reads it back to continue a run: `bestof resume` folds events.jsonl, which holds
 * every event, so a snapshot that lags by a fraction of a second after a kill -9 loses nothing.
 * Rewriting it after every event made the writes grow with the square of the candidates.
 *
 * `bestof ls` and `show` do read it (readStateFile): a few KB, where the log of a run whose
 * agents flooded their output can be 100 MB. For them a snapshot a fraction of a second behind
 * the log of a killed run is the same picture.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunEvent, RunEventListener } from '../engine/record/events.js';
import { STATE_FILE } from '../engine/record/run-folder.js';
import { initialRunState, reduceRunState, type RunState } from '../engine/record/run-state.js';

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
  try {
    writeFileSync(temporary, content);
    renameSync(temporary, path);
  } catch (error) {
    // A write cut short (a full disk) leaves no half file beside the real one.
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Not a file: left as it is.
    }
    throw error;
  }
}

export function createStateFileWriter(runDir: string, options: StateFileOptions = {}): StateFileWriter {
  const intervalMs = options.intervalMs ?? 250;
  const path = join(runDir, STATE_FILE);
  let state = options.initial ?? initialRunState();
  let dirty = false;
  let lastWrite = 0;
  let timer: NodeJS.Timeout | undefined;
  let writes = 0;

  let failed = false;
  const write = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!dirty || failed) return;
    try {
      writeFileAtomic(path, JSON.stringify(state, null, 2));
    } catch {
      // A full disk, most likely. Never thrown: this runs from a timer too, where it would end
      // bestof on the spot. The snapshot goes, rather than stay behind the log: `ls` and `show`
      // then fold the log instead (readStateFile finds no file). Removing frees space; it does not take any.
      failed = true;
      try {
        rmSync(path, { force: true });
      } catch {
        // Not a file (nothing of ours): left as it is.
      }
      return;
    }
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

/**
 * The snapshot of a run, or undefined when there is none to trust: no file (a run killed before
 * its first write, a run of an older bestof), or one that does not parse or is not a run's state.
 */
export async function readStateFile(runDir: string): Promise<RunState | undefined> {
  let text: string;
  try {
    text = await readFile(join(runDir, STATE_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const state: unknown = JSON.parse(text);
    return looksLikeRunState(state) ? state : undefined;
  } catch {
    return undefined;
  }
}

/** The fields every reader of a run relies on, down to each candidate the order names. */
function looksLikeRunState(value: unknown): value is RunState {
  if (!isRecord(value)) return false;
  const { runId, name, status, order, candidates, ranking, warnings } = value;
  if (typeof runId !== 'string' || runId === '' || typeof name !== 'string' || typeof status !== 'string') return false;
  if (!Array.isArray(order) || !Array.isArray(ranking) || !Array.isArray(warnings) || !isRecord(candidates)) return false;
  return order.every((id) => {
    const candidate = typeof id === 'string' ? candidates[id] : undefined;
    return isRecord(candidate) && typeof candidate.status === 'string' && Array.isArray(candidate.iterations);
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
