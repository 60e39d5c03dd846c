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
  const root = canonicalPath(folder);
  const named = [...new Set([root, resolve(folder)])];
  const inFolder = (path: string): boolean => named.some((dir) => path === dir || path.startsWith(`${dir}${sep}`));
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
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
    if (inFolder(cwd) || args.some(inFolder)) found.push(Number(entry));
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
  const deadline = Date.now() + opts.timeoutMs;
  let delay = 20;
  for (;;) {
    let users = gitProcessesWorkingIn(folder);
    if (users.length === 0 && !opts.signal?.aborted) {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      users = gitProcessesWorkingIn(folder);
    }
    if (users.length === 0 || Date.now() >= deadline || opts.signal?.aborted) return users;
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(500, delay * 2);
  }
}
