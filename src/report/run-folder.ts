/**
 * The run folder, `<repo>/.bestof/runs/<run-id>/`: the frozen spec, the event log (the
 * record of what happened), state.json (its snapshot, written atomically so that a kill -9
 * never leaves half a file), the reports, and per candidate the prompts, raw agent output
 * and check logs.
 */
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunEvent } from '../engine/events.js';

export const RUNS_DIR = join('.bestof', 'runs');

export function runsRoot(repoRoot: string): string {
  return join(repoRoot, RUNS_DIR);
}

export function runDirOf(repoRoot: string, runId: string): string {
  return join(runsRoot(repoRoot), runId);
}

export function candidateDir(runDir: string, candidate: string): string {
  return join(runDir, 'candidates', candidate);
}

export function iterationDir(runDir: string, candidate: string, iteration: number): string {
  return join(candidateDir(runDir, candidate), `iteration-${iteration}`);
}

/** Writes a file so that readers see either the old or the new content, never a mix. */
export function writeFileAtomic(path: string, content: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
}

export function createRunFolder(runDir: string, specSource: string): void {
  mkdirSync(join(runDir, 'candidates'), { recursive: true });
  writeFileSync(join(runDir, 'spec.toml'), specSource);
}

/**
 * Appends one event per line. Synchronous on purpose: the log must hold every event that
 * happened before a crash or a kill -9, and events are small and few per second.
 */
export function appendEvent(runDir: string, event: RunEvent): void {
  appendFileSync(join(runDir, 'events.jsonl'), `${JSON.stringify(event)}\n`);
}

/** Reads an event log; a torn last line (the process died mid-write) is skipped. */
export async function readEvents(runDir: string): Promise<RunEvent[]> {
  const text = await readFile(join(runDir, 'events.jsonl'), 'utf8');
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

export interface RunListing {
  readonly runId: string;
  readonly runDir: string;
  readonly modifiedMs: number;
}

/** Runs of a repo, newest first. */
export async function listRunFolders(repoRoot: string): Promise<RunListing[]> {
  const root = runsRoot(repoRoot);
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const listings = await Promise.all(
    names.map(async (runId) => {
      const runDir = join(root, runId);
      try {
        const info = await stat(join(runDir, 'events.jsonl'));
        return { runId, runDir, modifiedMs: info.mtimeMs };
      } catch {
        return undefined;
      }
    }),
  );
  return listings.filter((l): l is RunListing => l !== undefined).sort((a, b) => b.modifiedMs - a.modifiedMs || b.runId.localeCompare(a.runId));
}
