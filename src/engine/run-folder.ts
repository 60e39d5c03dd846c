/**
 * The run folder's layout, `<repo>/.bestof/runs/<run-id>/`: the frozen spec, the event log
 * (the record of what happened), state.json (its snapshot), the reports, and per candidate
 * the prompts, raw agent output and check logs. The engine creates the folder and writes the
 * per-candidate files; the record of events (events.jsonl, state.json, reports) is written by
 * listeners of src/report that the CLI wires up, like any front end.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const RUNS_DIR = join('.bestof', 'runs');
export const EVENT_LOG_FILE = 'events.jsonl';
export const STATE_FILE = 'state.json';
/** The run's random key (./leftovers.ts), which every process the run starts carries as BESTOF_RUN_KEY. */
export const RUN_KEY_FILE = 'run-key';

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

export function createRunFolder(runDir: string, specSource: string): void {
  mkdirSync(join(runDir, 'candidates'), { recursive: true });
  writeFileSync(join(runDir, 'spec.toml'), specSource);
}

export interface RunListing {
  readonly runId: string;
  readonly runDir: string;
  readonly modifiedMs: number;
}

/** Runs of a repo that recorded at least one event, newest first. */
export async function listRunFolders(repoRoot: string): Promise<RunListing[]> {
  return (await listAllRunFolders(repoRoot)).recorded;
}

/** Run folders whose event log is missing or empty (see listAllRunFolders), newest first. */
export async function listUnrecordedRunFolders(repoRoot: string): Promise<RunListing[]> {
  return (await listAllRunFolders(repoRoot)).unrecorded;
}

/**
 * Every run folder of a repo in one pass, newest first in each list: `recorded`, those whose event
 * log holds an event (by the log's time); `unrecorded`, those whose log is missing or empty (by the
 * folder's time), a run stopped (kill -9, a full disk) between making its folder and writing its
 * first event. Nothing of such a run was started (no worktree, branch or agent comes before that
 * event): its folder holds the spec's copy and the run's key, and nothing reads it. A folder whose
 * log cannot be read is in neither.
 */
export async function listAllRunFolders(repoRoot: string): Promise<{ readonly recorded: RunListing[]; readonly unrecorded: RunListing[] }> {
  const sorted = await Promise.all(
    (await runFolderNames(repoRoot)).map(async (runId): Promise<{ readonly recorded: boolean; readonly listing: RunListing } | undefined> => {
      const runDir = runDirOf(repoRoot, runId);
      const log = await stat(join(runDir, EVENT_LOG_FILE)).then(
        (info) => info,
        (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : undefined),
      );
      if (log === undefined) return undefined;
      if (log !== null && log.size > 0) return { recorded: true, listing: { runId, runDir, modifiedMs: log.mtimeMs } };
      const folder = await stat(runDir).catch(() => undefined);
      return folder?.isDirectory() ? { recorded: false, listing: { runId, runDir, modifiedMs: folder.mtimeMs } } : undefined;
    }),
  );
  const of = (recorded: boolean): RunListing[] => newestFirst(sorted.flatMap((entry) => (entry?.recorded === recorded ? [entry.listing] : [])));
  return { recorded: of(true), unrecorded: of(false) };
}

/** The names under the runs folder (none when it does not exist). */
async function runFolderNames(repoRoot: string): Promise<string[]> {
  try {
    return await readdir(runsRoot(repoRoot));
  } catch {
    return [];
  }
}

function newestFirst(listings: RunListing[]): RunListing[] {
  return listings.sort((a, b) => b.modifiedMs - a.modifiedMs || b.runId.localeCompare(a.runId));
}
