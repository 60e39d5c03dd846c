import { openRepo } from '../git/running/repo.js';
import { RECORD_FORMAT } from '../engine/record/events.js';
import { listAllRunFolders, type RunListing } from '../engine/record/run-folder.js';
import { readStateFile } from '../report/state-file.js';
import type { RunState } from '../engine/record/run-state.js';
import { UsageError } from './usage-error.js';

/**
 * A run recorded by a newer bestof, in a format this one does not know (../engine/record/events.ts
 * RECORD_FORMAT): resumed, cleaned or sent to by this bestof, it could be acted on wrongly. The
 * commands that read a run refuse it with this (exit 2); `ls` and `clean` name it and go on.
 */
export class NewerRecordError extends UsageError {
  constructor(
    readonly runId: string,
    readonly format: number,
  ) {
    super(
      `run ${runId} was recorded by a newer bestof (record format ${format}; this bestof reads format ${RECORD_FORMAT} and older): use a bestof at least as new as the one that started it`,
    );
  }
}

/** What `loading` gives, or the NewerRecordError it failed with (for the commands that name such a run and go on). */
export function orNewerRecord<T>(loading: Promise<T>): Promise<T | NewerRecordError> {
  return loading.catch((error: unknown) => {
    if (error instanceof NewerRecordError) return error;
    throw error;
  });
}

/** `state` itself, when this bestof can read its record. */
function readable(state: RunState): RunState {
  const format = state.recordFormat ?? 1;
  if (format > RECORD_FORMAT) throw new NewerRecordError(state.runId, format);
  return state;
}

export async function currentRepoRoot(): Promise<string> {
  const repo = await openRepo(process.cwd());
  if (!repo.ok) throw new UsageError(repo.error);
  return repo.value.root;
}

/** A run by its id, a unique prefix of it, or "latest" / nothing for the newest. */
export async function findRun(repoRoot: string, query: string | undefined): Promise<RunListing> {
  const { recorded: runs, unrecorded } = await listAllRunFolders(repoRoot);
  if (query === undefined || query === 'latest') {
    if (runs.length === 0) throw new UsageError(`no runs in ${repoRoot} yet (start one with \`bestof run\`)`);
    return runs[0] as RunListing;
  }
  const found = matchRun(runs, query);
  if (found) return found;
  // A run stopped before its first event has a folder and no record: said as such, not "no run".
  const stopped = matchRun(unrecorded, query);
  if (stopped) throw new UsageError(unrecordedRunSaid(stopped));
  throw new UsageError(
    runs.length === 0 ? `no runs in ${repoRoot} yet (start one with \`bestof run\`)` : `no run "${query}" in ${repoRoot} (see \`bestof ls\`)`,
  );
}

/** The run `query` names among `runs` (its id, or a unique start or end of it); throws when it names several. */
function matchRun(runs: readonly RunListing[], query: string): RunListing | undefined {
  const exact = runs.find((r) => r.runId === query);
  if (exact) return exact;
  const matches = runs.filter((r) => r.runId.startsWith(query) || r.runId.endsWith(query));
  if (matches.length > 1)
    throw new UsageError(
      `"${query}" matches ${matches.length} runs (${matches
        .slice(0, 3)
        .map((r) => r.runId)
        .join(', ')}…); give more of the id`,
    );
  return matches[0];
}

/** What a run that recorded nothing is, for a command that was asked to act on it. */
function unrecordedRunSaid(run: RunListing): string {
  return `run ${run.runId} recorded nothing: it was stopped before its first event (${run.runDir} holds no event log), so nothing of it was started; \`bestof clean\` without a run id deletes its folder once it is a minute old`;
}

/**
 * The run's state from its whole event log, streamed. For what continues or changes a run
 * (`resume`, `send`, `clean`): the log holds every event, the snapshot may be 250 ms behind it.
 */
export async function loadRunState(runDir: string): Promise<RunState> {
  // Loaded when used: `ls` and `show` read the snapshot and need the log's reader only without one.
  const { foldEventLog } = await import('../report/event-log.js');
  return readable(await foldEventLog(runDir));
}

/**
 * The run's state for reading it (`ls`, `show`): its snapshot, state.json, when there is one
 * that parses; else (a run killed before its first snapshot, a run of an older bestof) the
 * fold of its log. A flooded log can be 100 MB; the snapshot is a few KB.
 */
export async function loadRunSummary(runDir: string): Promise<RunState> {
  const snapshot = await readStateFile(runDir);
  return snapshot ? readable(snapshot) : loadRunState(runDir);
}
