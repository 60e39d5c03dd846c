/**
 * `bestof clean --runs --older-than 30d`: the run folders under .bestof/runs and their refs under
 * refs/bestof/<run>/, for runs that started longer ago than that and that hold nothing unmerged.
 *
 * The rule (what "nothing unmerged" means):
 * - a run with a winner: only once the winner is merged, that is its merged commit (or the
 *   winner's scored or reverted commit) is on a branch that is not one of the run's own. Then
 *   the losers' refs go too: their work lost, the winner is in the history. An unmerged winner is
 *   never removed, not even with --all.
 * - a run without a winner (no candidate could win, cancelled, failed): only when the commit of every
 *   one of its refs is on a branch; with --all, also when some is not (the losers' work goes).
 * - never a run that is still running, nor one whose worktree is still there (plain `clean` first).
 * The start time is the run's own (run.started in its log or snapshot), not the folder's mtime,
 * which a `show` or a late write can refresh.
 */
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { branchesContaining, deleteRef, listRefs } from '../../git/history/refs.js';
import { runIsAlive } from '../record/run-lock.js';
import type { RunListing } from '../record/run-folder.js';
import type { RunState } from '../record/run-state.js';
import { plural } from '../words.js';
import { removeTree } from '../../owned-tree.js';
import type { CleanOutput } from './context.js';

const DAY_MS = 86_400_000;

/** When the run started: run.started's time, else the time in its id (YYYYMMDD-HHMMSS, local), else its log's mtime. */
export function runStartedMs(run: RunListing, state: Pick<RunState, 'startedAt'>): number {
  const recorded = Date.parse(state.startedAt);
  if (Number.isFinite(recorded)) return recorded;
  const id = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-/.exec(run.runId);
  if (id) {
    const [, y, mo, d, h, mi, s] = id.map(Number) as number[];
    return new Date(y as number, (mo as number) - 1, d, h, mi, s).getTime();
  }
  return run.modifiedMs;
}

export interface OldRunsRequest {
  readonly repoRoot: string;
  readonly runs: readonly RunListing[];
  readonly olderThanMs: number;
  readonly all: boolean;
  readonly dryRun: boolean;
  /** Runs whose worktree plain `clean` had to keep: not removed. */
  readonly keptWorktrees: ReadonlySet<string>;
  readonly loadState: (runDir: string) => Promise<RunState>;
  readonly now?: number;
  readonly say: CleanOutput['say'];
  readonly note: CleanOutput['note'];
}

/** What was done; `kept` are the old runs left, each said with why. */
export async function cleanOldRuns(request: OldRunsRequest): Promise<{ removed: number; kept: number }> {
  const { repoRoot, olderThanMs, dryRun, say, note } = request;
  const now = request.now ?? Date.now();
  let removed = 0;
  let kept = 0;
  for (const run of request.runs) {
    if (runIsAlive(run.runDir)) continue; // plain clean said so already
    const state = await request.loadState(run.runDir);
    const started = runStartedMs(run, state);
    if (now - started <= olderThanMs) continue;
    const age = `started ${new Date(started).toISOString().slice(0, 10)}, ${Math.floor((now - started) / DAY_MS)} days ago`;
    const refs = await listRefs(repoRoot, `refs/bestof/${run.runId}/`);
    const refuse = await whyKeep({ ...request, run, state, refs });
    if (refuse !== undefined) {
      kept += 1;
      note(`keep run ${run.runId} (${age}): ${refuse}`);
      continue;
    }
    removed += 1;
    const folder = relative(repoRoot, run.runDir) || run.runDir;
    say(`remove run ${run.runId} (${age}): its folder ${folder} and ${plural(refs.length, 'ref')} under refs/bestof/${run.runId}/`);
    if (dryRun) continue;
    for (const { ref } of refs) await deleteRef(repoRoot, ref);
    await removeTree(run.runDir);
  }
  return { removed, kept };
}

async function whyKeep(
  request: OldRunsRequest & { run: RunListing; state: RunState; refs: readonly { ref: string; sha: string }[] },
): Promise<string | undefined> {
  const { repoRoot, run, state, refs } = request;
  if (request.keptWorktrees.has(run.runId)) return 'a worktree of it was kept (see above)';
  const ownBranches = new Set(state.order.map((id) => state.candidates[id]?.branch).filter((b): b is string => b !== undefined));
  if (!request.dryRun) {
    const left = state.order.map((id) => state.candidates[id]?.worktree).filter((w): w is string => w !== undefined && existsSync(w));
    if (left.length > 0) return `its worktree ${left[0]} is still there`;
  }
  const onBranch = async (sha: string | undefined): Promise<boolean> =>
    sha !== undefined && (await branchesContaining(repoRoot, sha).catch(() => [])).some((b) => !ownBranches.has(b));
  const winnerId = state.merge?.ok ? state.merge.candidate : state.winner;
  if (winnerId !== undefined) {
    const winner = state.candidates[winnerId];
    const reverted = refs.find((r) => r.ref === `refs/bestof/${run.runId}/${winnerId}/reverted`)?.sha;
    const merged = (state.merge?.ok && (await onBranch(state.merge.commit))) || (await onBranch(winner?.commit)) || (await onBranch(reverted));
    if (!merged) {
      return `its winner ${winnerId} is not merged (its commit ${winner?.commit?.slice(0, 10) ?? '?'} is on no branch of yours); merge it, or keep the run: an unmerged winner is never removed`;
    }
    return undefined;
  }
  const unmerged: string[] = [];
  for (const { ref, sha } of refs) if (!(await onBranch(sha))) unmerged.push(ref);
  if (unmerged.length > 0 && !request.all) {
    return `it has no winner and ${plural(unmerged.length, 'ref')} whose commit is on no branch (${unmerged.slice(0, 2).join(', ')}${unmerged.length > 2 ? ', …' : ''}); --all removes them too`;
  }
  return undefined;
}
