/**
 * `bestof clean`'s work, in the order it is done: the runs' worktrees and branches (./dead-run.ts),
 * what runs left beside them in the worktrees root and the runs folder (./run-folders.ts), and with
 * `--runs --older-than`, old runs' folders and refs that hold nothing unmerged (./old-runs.ts).
 * Copy-on-write worktrees are seen only inside a mount namespace: where some are, clean runs itself
 * again in one (./cow.ts) and this process only passes on that one's exit code.
 *
 * It never loses work: changes left uncommitted in a worktree are committed and kept under
 * refs/bestof/<run>/<candidate>/kept before the worktree goes, and a branch is deleted only when
 * its commit is kept under refs/bestof or merged into another branch.
 */
import { listWorktrees, pruneWorktrees } from '../../git/worktrees/worktree.js';
import type { RunListing } from '../record/run-folder.js';
import { runIsAlive } from '../record/run-lock.js';
import type { RunState } from '../record/run-state.js';
import type { CleanContext, CleanOutput } from './context.js';
import { cleanCowMode } from './cow.js';
import { cleanRun } from './dead-run.js';
import { cleanOldRuns } from './old-runs.js';
import { removeLeftoverTrash, removeRunFolderLeftovers, removeUnrecordedRunFolders } from './run-folders.js';

export interface CleanRequest extends CleanOutput {
  readonly repoRoot: string;
  /** The runs to clean; one that is running when its turn comes is skipped, with a note. */
  readonly runs: readonly RunListing[];
  /** The record of each run that was not running when the runs were listed. */
  readonly states: ReadonlyMap<string, RunState>;
  /** A run's record, read from its whole event log (the reader lives in src/report, below which the engine sits). */
  readonly loadState: (runDir: string) => Promise<RunState>;
  readonly dryRun: boolean;
  /** `--all`: a winner's branch not merged yet goes too, and an old run's unmerged refs. */
  readonly all: boolean;
  /** Also the folders of runs stopped before their first event (every run, not one named). */
  readonly unrecordedFolders: boolean;
  /** `--runs --older-than`: also the folders and refs of runs that started longer ago than this. */
  readonly olderThanMs?: number;
}

export type CleanResult =
  /** Clean ran again inside a mount namespace (copy-on-write worktrees): that one's exit code. */
  | { readonly kind: 'ran-inside'; readonly exitCode: number }
  | {
      readonly kind: 'cleaned';
      /** How many things were (or, on a dry run, would be) cleaned. */
      readonly actions: number;
      /** Worktrees kept because their work could not be saved. */
      readonly keptWithWork: number;
      /** With `olderThanMs`: old runs removed, and old runs kept (each noted with why). */
      readonly oldRuns?: { readonly removed: number; readonly kept: number };
    };

export async function cleanRepo(request: CleanRequest): Promise<CleanResult> {
  const { repoRoot, dryRun } = request;
  const worktrees = await listWorktrees(repoRoot);
  const cow = await cleanCowMode(
    [...request.states.values()].flatMap((state) => Object.values(state.candidates).flatMap((c) => (c?.worktree ? [c.worktree] : []))),
    dryRun,
  );
  if (cow.kind === 'ran-inside') return cow;
  const context: CleanContext = { repoRoot, worktrees, dryRun, all: request.all, say: request.say, note: request.note, problem: request.problem, cow };
  let actions = 0;
  let keptWithWork = 0;
  /** Runs with a worktree kept for its unsaved work: --runs leaves them. */
  const keptRuns = new Set<string>();
  for (const run of request.runs) {
    if (runIsAlive(run.runDir)) {
      request.note(`skip ${run.runId}: it is still running (stop it first)`);
      continue;
    }
    const cleaned = await cleanRun(context, run, request.states.get(run.runId) ?? (await request.loadState(run.runDir)));
    actions += cleaned.actions;
    keptWithWork += cleaned.keptWithWork;
    if (cleaned.keptWithWork > 0) keptRuns.add(run.runId);
  }
  if (!dryRun) await pruneWorktrees(repoRoot);
  actions += await removeLeftoverTrash(repoRoot, dryRun, request.say);
  actions += await removeRunFolderLeftovers(repoRoot, dryRun, request.say);
  if (request.unrecordedFolders) actions += await removeUnrecordedRunFolders(repoRoot, dryRun, request.say);
  if (request.olderThanMs === undefined) return { kind: 'cleaned', actions, keptWithWork };
  const oldRuns = await cleanOldRuns({
    repoRoot,
    runs: request.runs,
    olderThanMs: request.olderThanMs,
    all: request.all,
    dryRun,
    keptWorktrees: keptRuns,
    loadState: request.loadState,
    say: request.say,
    note: request.note,
  });
  return { kind: 'cleaned', actions: actions + oldRuns.removed, keptWithWork, oldRuns };
}
