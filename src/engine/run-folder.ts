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
  const listings = await Promise.all(
    (await runFolderNames(repoRoot)).map(async (runId) => {
      const runDir = runDirOf(repoRoot, runId);
      try {
        const info = await stat(join(runDir, EVENT_LOG_FILE));
        // Empty: its first event was never written (listUnrecordedRunFolders).
        return info.size > 0 ? { runId, runDir, modifiedMs: info.mtimeMs } : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  return newestFirst(listings);
}

/**
 * Run folders whose event log is missing or empty: a run stopped (kill -9, a full disk) between
 * making its folder and writing its first event. Nothing of it was started (no worktree, branch or agent
 * comes before that event): the folder holds the spec's copy and the run's key, and nothing
 * reads it. Newest first, by the folder's own time.
 */
export async function listUnrecordedRunFolders(repoRoot: string): Promise<RunListing[]> {
  const listings = await Promise.all(
    (await runFolderNames(repoRoot)).map(async (runId) => {
      const runDir = runDirOf(repoRoot, runId);
      const folder = await stat(runDir).catch(() => undefined);
      if (!folder?.isDirectory()) return undefined;
      const logged = await stat(join(runDir, EVENT_LOG_FILE)).then(
        (log) => log.size > 0,
        (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
      );
      return logged ? undefined : { runId, runDir, modifiedMs: folder.mtimeMs };
    }),
  );
  return newestFirst(listings);
}

/** The names under the runs folder (none when it does not exist). */
async function runFolderNames(repoRoot: string): Promise<string[]> {
  try {
    return await readdir(runsRoot(repoRoot));
  } catch {
    return [];
  }
}

function newestFirst(listings: readonly (RunListing | undefined)[]): RunListing[] {
  return listings.filter((l): l is RunListing => l !== undefined).sort((a, b) => b.modifiedMs - a.modifiedMs || b.runId.localeCompare(a.runId));
}
