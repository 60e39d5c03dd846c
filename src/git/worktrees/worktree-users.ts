/**
 * git processes still working in a worktree folder, found by their name and working directory
 * (Linux `/proc/<pid>/comm` and `/proc/<pid>/cwd`; `git -C <dir>` changes into it too).
 *
 * Why: a bestof killed with SIGKILL takes none of its git commands along. A `git reset --hard`
 * that checks out thousands of files goes on writing into the worktree, and holding its
 * `index.lock`, for a while after. A resume or a clean that removed the half-made folder or the
 * "stale" lock under its feet would race it; they wait for it to end first. Only git: a person's
 * shell open in the worktree writes nothing and must not block anyone (the run's agents and setup
 * commands are stopped by the caller before, by the run's key).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { canonicalPath } from './worktree-admin.js';

/**
 * Pids of git processes working in `folder`: whose working directory is `folder` or inside it, or
 * whose arguments name it or a path inside it (`git -C <folder> reset --hard` before it has changed
 * into it, `git worktree add <folder>` run from the repository); [] where /proc does not exist.
 */
export function gitProcessesWorkingIn(folder: string): number[] {
  return gitProcessesWorkingInEach([folder]).get(folder) ?? [];
}

/** gitProcessesWorkingIn for each folder, from one look at /proc: every folder is a key ([] when free). */
function gitProcessesWorkingInEach(folders: readonly string[]): Map<string, number[]> {
  const found = new Map<string, number[]>(folders.map((folder) => [folder, []]));
  const named = [...found.keys()].map((folder) => {
    const dirs = [...new Set([canonicalPath(folder), resolve(folder)])];
    return { folder, holds: (path: string): boolean => dirs.some((dir) => path === dir || path.startsWith(`${dir}${sep}`)) };
  });
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cwd: string;
    let args: string[];
    try {
      if (!readFileSync(`/proc/${entry}/comm`, 'utf8').startsWith('git')) continue;
      cwd = readlinkSync(`/proc/${entry}/cwd`);
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone, or someone else's
    }
    for (const { folder, holds } of named) if (holds(cwd) || args.some(holds)) found.get(folder)?.push(Number(entry));
  }
  return found;
}

/** How long a folder must stay free of git before it counts as free: see waitForGitToLeave. */
const SETTLE_MS = 100;

/**
 * Waits until no git process works in `folder` any more, up to `timeoutMs`. Returns the pids still
 * there then ([] when it is free). Free means free at two looks `SETTLE_MS` apart: a bestof killed
 * while it was starting a git leaves a child that is not git yet (between its fork and its exec it
 * still bears its parent's name and arguments) and becomes git a moment later, to write into the
 * folder a resume is already deleting.
 */
export async function waitForGitToLeave(folder: string, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<number[]> {
  return (await waitForGitToLeaveEach([folder], opts)).get(folder) ?? [];
}

/**
 * waitForGitToLeave for many folders at once (`bestof clean` of a run's worktrees): they wait and
 * settle together, so that N folders cost one settle, not N one after another. Returns, for each
 * folder, the pids still working in it when the wait ended ([] when it is free): every folder is
 * free at the same two looks `SETTLE_MS` apart, or the time is up (or `signal` fired) and the busy
 * ones are those of the last look.
 */
export async function waitForGitToLeaveEach(folders: readonly string[], opts: { timeoutMs: number; signal?: AbortSignal }): Promise<Map<string, number[]>> {
  const deadline = Date.now() + opts.timeoutMs;
  const allFree = (users: Map<string, number[]>): boolean => [...users.values()].every((pids) => pids.length === 0);
  let delay = 20;
  for (;;) {
    let users = gitProcessesWorkingInEach(folders);
    if (allFree(users) && !opts.signal?.aborted) {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      users = gitProcessesWorkingInEach(folders);
    }
    if (allFree(users) || Date.now() >= deadline || opts.signal?.aborted) return users;
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(500, delay * 2);
  }
}
