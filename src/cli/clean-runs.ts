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
import { readdir, rmdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { branchesContaining, deleteRef, listRefs } from '../git/refs.js';
import { worktreesRoot } from '../engine/plan.js';
import { COW_TRASH } from '../engine/cow-layout.js';
import { AGENT_FOLDERS } from '../engine/agent-sandbox.js';
import { runIsAlive } from '../engine/run-lock.js';
import { listUnrecordedRunFolders, runDirOf, type RunListing } from '../engine/run-folder.js';
import type { RunState } from '../engine/run-state.js';
import { parseDuration } from '../spec/duration.js';
import { UsageError } from './usage-error.js';
import { plural } from '../engine/words.js';
import { removeTree } from '../owned-tree.js';
import { ASIDE_FOLDER } from '../checks/scoring-tree.js';

const DAY_MS = 86_400_000;

/** `--older-than`: "30d", "12h", "2w", "1d12h"; a bare number is refused (seconds? days?). */
export function parseAge(text: string): number {
  const weeks = /^(\d+)w$/.exec(text.trim());
  const ms = weeks ? Number(weeks[1]) * 7 * DAY_MS : /^\d+(\.\d+)?$/.test(text.trim()) ? undefined : parseDuration(text);
  if (ms === undefined || ms <= 0) {
    throw new UsageError(`clean: --older-than ${JSON.stringify(text)} is not an age; say how long ago the runs started, with a unit: 30d, 12h, 2w`);
  }
  return ms;
}

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
  readonly say: (line: string) => void;
}

/** What was done; `kept` are the old runs left, each said with why. */
export async function cleanOldRuns(request: OldRunsRequest): Promise<{ removed: number; kept: number }> {
  const { repoRoot, olderThanMs, dryRun, say } = request;
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
      process.stdout.write(`keep run ${run.runId} (${age}): ${refuse}\n`);
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

async function whyKeep(request: OldRunsRequest & { run: RunListing; state: RunState; refs: readonly { ref: string; sha: string }[] }): Promise<string | undefined> {
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

/**
 * The per-run folders left empty under the worktrees root (~/.cache/bestof/worktrees/<repo>-<id>/<run>/)
 * once their worktrees are gone; rmdir, so a folder with anything in it stays. First, in the folder
 * of every run that is not running, what an interrupted run left of its agents: their HOMEs
 * (`.homes/`, which hold copies of the agents' logins: a run removes them as it ends, a run killed
 * with SIGKILL cannot) and the reviewers' exports (`.review/`). Nothing of a candidate's work is in
 * them (`bestof resume` makes them again).
 */
export async function removeRunFolderLeftovers(repoRoot: string, dryRun: boolean, say: (line: string) => void): Promise<number> {
  const root = worktreesRoot(repoRoot);
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return 0;
  }
  let count = 0;
  for (const name of names) {
    const folder = join(root, name);
    // A running run's folder is empty for a moment before its first worktree is added.
    if (runIsAlive(runDirOf(repoRoot, name))) continue;
    const agentsLeftovers = Object.values(AGENT_FOLDERS).map((entry) => join(folder, entry)).filter((path) => existsSync(path));
    if (agentsLeftovers.length > 0) {
      if (!dryRun) for (const path of agentsLeftovers) await removeTree(path);
      count += 1;
      say(`remove what the agents of the interrupted run ${name} left: ${agentsLeftovers.map((path) => relative(root, path)).join(', ')} (the agents' HOMEs, which hold copies of their logins, the checks' HOMEs and review exports; no candidate's work is there)`);
    }
    let inside: string[];
    try {
      inside = await readdir(folder);
    } catch {
      continue; // a file, or gone
    }
    // The folder the candidates' leftovers waited in during their checks counts as nothing when empty
    // (runs before 2026-12-05 left it behind, and so their whole folder).
    const aside = join(folder, ASIDE_FOLDER);
    const asideEmpty = inside.includes(ASIDE_FOLDER) && (await readdir(aside).then((entries) => entries.length === 0, () => false));
    if (inside.some((entry) => !(entry === ASIDE_FOLDER && asideEmpty))) continue;
    if (!dryRun) {
      try {
        if (asideEmpty) await rmdir(aside);
        await rmdir(folder);
      } catch {
        continue; // something arrived in it since
      }
    }
    count += 1;
    say(`remove the empty folder ${folder}`);
  }
  return count;
}

/**
 * Finishes deleting what runs left in the worktrees root's trash (the shared base checkouts of
 * copy-on-write worktrees, deleted by a process of their own after the run: see
 * src/process/background-remove.ts), when that process was killed or the machine stopped. Returns
 * how many it removed (or would remove, with `dryRun`).
 */
export async function removeLeftoverTrash(repoRoot: string, dryRun: boolean, say: (line: string) => void): Promise<number> {
  const trash = join(worktreesRoot(repoRoot), COW_TRASH);
  let names: string[];
  try {
    names = await readdir(trash);
  } catch {
    return 0;
  }
  for (const name of names) {
    say(`remove ${join(trash, name)} (a shared base checkout left being deleted)`);
    if (!dryRun) await removeTree(join(trash, name));
  }
  if (!dryRun) await rmdir(trash).catch(() => undefined);
  return names.length;
}

/** A folder this young without a record may be a run starting this instant (its run.pid not yet written). */
const UNRECORDED_GRACE_MS = 60_000;

/**
 * The folders of runs stopped before their first event (a kill -9, a full disk): they hold the
 * spec's copy and the run's key, nothing else, and no command can read them (run-folder.ts
 * listUnrecordedRunFolders). Removed once the run is not alive and the folder is a minute old.
 */
export async function removeUnrecordedRunFolders(repoRoot: string, dryRun: boolean, say: (line: string) => void, now = Date.now()): Promise<number> {
  let count = 0;
  for (const run of await listUnrecordedRunFolders(repoRoot)) {
    if (runIsAlive(run.runDir) || now - run.modifiedMs < UNRECORDED_GRACE_MS) continue;
    if (!dryRun) await removeTree(run.runDir);
    count += 1;
    say(`remove the run folder ${run.runDir}: the run recorded nothing (it was stopped before its first event; nothing of it was started)`);
  }
  return count;
}
