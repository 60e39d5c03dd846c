/**
 * The run folder's layout, `<repo>/.bestof/runs/<run-id>/`: the frozen spec, the event log
 * (the record of what happened), state.json (its snapshot), the reports, and per candidate
 * the prompts, raw agent output and check logs. The engine creates the folder and writes the
 * per-candidate files; the record of events (events.jsonl, state.json, reports) is written by
 * listeners of src/report that the CLI wires up, like any front end.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const RUNS_DIR = join('.bestof', 'runs');
/** Base's test reports by base commit and check, kept between runs (../scoring/base-reference.ts). */
export const REFERENCE_CACHE_DIR = join('.bestof', 'reference');
/** In a run folder: base's run of the report checks (its setup log and check logs). */
export const REFERENCE_DIR = 'reference';

// Every name of the run folder, here and nowhere else: a reader and a writer of a file cannot disagree on it.
/** The event log: the record of what happened, one JSON event a line. */
export const EVENT_LOG_FILE = 'events.jsonl';
/** The fold of the event log (./run-state.ts), rewritten as the run goes. */
export const STATE_FILE = 'state.json';
/** The spec as the run started, which `resume` runs again. */
export const SPEC_FILE = 'spec.toml';
export const REPORT_JSON_FILE = 'report.json';
export const REPORT_MD_FILE = 'report.md';
export const REPORT_HTML_FILE = 'report.html';
/** The run's random key (../sandbox/leftovers.ts), which every process the run starts carries as BESTOF_RUN_KEY. */
export const RUN_KEY_FILE = 'run-key';
/** The folder of the candidates' own folders. */
export const CANDIDATES_DIR = 'candidates';
/** The vote's folder: its calls' prompts and raw answers. */
export const VOTE_DIR = 'vote';
/** In a candidate's folder: what setup made (readSetupPaths); written whole when setup completes, so it is also the mark that it did. */
export const SETUP_PATHS_FILE = 'setup-paths.json';
/** In a candidate's folder: messages and stops sent to it (../loop/channel.ts). */
export const CHANNEL_FILE = 'channel.jsonl';
/** In a candidate's folder: one section per scored iteration (../loop/progress.ts). */
export const PROGRESS_FILE = 'progress.md';
/** In an iteration's folder (and the merge check's): the checks' logs. */
export const CHECK_LOGS_DIR = 'checks';
/** In an iteration's folder: the logs of the final scoring's checks, when it scored that iteration's commit again. */
export const FINAL_CHECKS_DIR = 'final-checks';

export function runsRoot(repoRoot: string): string {
  return join(repoRoot, RUNS_DIR);
}

export function runDirOf(repoRoot: string, runId: string): string {
  return join(runsRoot(repoRoot), runId);
}

export function candidateDir(runDir: string, candidate: string): string {
  return join(runDir, CANDIDATES_DIR, candidate);
}

export function iterationDir(runDir: string, candidate: string, iteration: number): string {
  return join(candidateDir(runDir, candidate), `iteration-${iteration}`);
}

/** Where a candidate's setup recorded what it made. */
export function setupPathsFile(runDir: string, candidate: string): string {
  return join(candidateDir(runDir, candidate), SETUP_PATHS_FILE);
}

/**
 * The untracked paths setup made (relative, folders ending in `/`), as a setup-paths.json recorded
 * them: none when the file is missing, cannot be read, does not parse or is not a list (what is not
 * a string in it is left out). A bad file is never an exception: its readers (a resume, the final
 * scoring, `clean`) only keep these paths out of what they save or commit.
 */
export function readSetupPaths(file: string): string[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(parsed) ? parsed.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
}

export function createRunFolder(runDir: string, specSource: string): void {
  mkdirSync(join(runDir, CANDIDATES_DIR), { recursive: true });
  writeFileSync(join(runDir, SPEC_FILE), specSource);
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
