/**
 * What runs leave in the worktrees root and the runs folder besides their worktrees, removed by
 * every `bestof clean`: the per-run folders left empty (and what interrupted agents left in them),
 * the trash of shared base checkouts still being deleted, and the folders of runs stopped before
 * their first event. None of it holds a candidate's work.
 */
import { existsSync } from 'node:fs';
import { readdir, rmdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { worktreesRoot } from '../plan/plan.js';
import { COW_TRASH } from '../workspace/cow-layout.js';
import { AGENT_FOLDERS } from '../sandbox/agent-sandbox.js';
import { runIsAlive } from '../record/run-lock.js';
import { listUnrecordedRunFolders, runDirOf } from '../record/run-folder.js';
import { removeTree } from '../../owned-tree.js';
import { ASIDE_FOLDER } from '../../checks/scoring-tree.js';

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
    const agentsLeftovers = Object.values(AGENT_FOLDERS)
      .map((entry) => join(folder, entry))
      .filter((path) => existsSync(path));
    if (agentsLeftovers.length > 0) {
      if (!dryRun) for (const path of agentsLeftovers) await removeTree(path);
      count += 1;
      say(
        `remove what the agents of the interrupted run ${name} left: ${agentsLeftovers.map((path) => relative(root, path)).join(', ')} (the agents' HOMEs, which hold copies of their logins, the checks' HOMEs and review exports; no candidate's work is there)`,
      );
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
    const asideEmpty =
      inside.includes(ASIDE_FOLDER) &&
      (await readdir(aside).then(
        (entries) => entries.length === 0,
        () => false,
      ));
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
