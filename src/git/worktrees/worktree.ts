/**
 * Candidate worktrees: one per candidate, on its own branch, outside the main working tree.
 *
 * Concurrent `git worktree add` calls race inside git (one reads another's half-written
 * `worktrees/<name>/commondir` and fails), so every step that writes or lists git's shared
 * worktree metadata holds the repository's `worktrees` lock, across bestof processes too. Only
 * that step: the checkout, the slow part, runs outside the lock, in parallel. A failed creation is
 * undone (folder, admin entry, the branch just made) and tried again: a candidate is not lost to
 * a hiccup of git's.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rename, statfs } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { err, ok, type Result } from '../../result.js';
import { gitMessage, gitOut, runGit, type GitCallOptions } from '../running/exec.js';
import { isFullObjectName } from '../running/object-name.js';
import { resolveCommit } from '../running/repo.js';
import { adminDirsOf, canonicalPath, discardWorktree, rememberNewWorktreeDirs, withWorktreesLock } from './worktree-admin.js';
import { removeTree } from '../../owned-tree.js';

export interface WorktreeInfo {
  /** Absolute path as git records it (symlinks in it are resolved, e.g. /private/tmp on macOS). */
  readonly path: string;
  /** Checked-out branch name (`bestof/x`, not `refs/heads/bestof/x`); absent when detached. */
  readonly branch?: string;
  /** Sha of HEAD in that worktree. */
  readonly head: string;
}

export interface AddWorktreeOptions {
  path: string;
  branch: string;
  /** Any revision naming a commit. */
  base: string;
  signal?: AbortSignal;
}

/** Creation attempts before a worktree is given up, and the pause after each failed one. */
export const WORKTREE_ATTEMPTS = 3;
const RETRY_PAUSE_MS = [150, 500];

/**
 * A new branch `branch` at `base` and its worktree at `path` (parent folders created), checked out
 * like `git worktree add --no-track -b <branch> <path> <base>` would. Refused when the branch
 * exists or the folder is not empty; a failure of git's is retried, then reported.
 */
export async function addWorktree(repo: string, opts: AddWorktreeOptions): Promise<Result<void>> {
  const { branch, base, signal } = opts;
  const path = resolve(opts.path);
  const call = { signal };
  // A full commit name (the planner's resolved base, as every run passes it) is not asked of git
  // again: the create-only `update-ref` below refuses an object that is missing or no commit
  // (git checks what a branch points at). Any other revision is resolved first.
  const baseCommit = isFullObjectName(base) ? base : await resolveCommit(repo, base, call);
  if (baseCommit === undefined) {
    return err(`cannot create worktree for ${branch}: base ${base} is not a commit in ${repo}`);
  }
  if (existsSync(path) && readdirSync(path).length > 0) {
    return err(`cannot create worktree: ${path} already exists and is not empty; remove it or choose another worktree folder`);
  }
  // The branch is made first, outside the lock (a ref of its own, no shared metadata), create-only;
  // a plain ref, so it tracks nothing (a candidate branch started from origin/main must not push to it).
  const branchMade = await runGit(repo, ['update-ref', `refs/heads/${branch}`, baseCommit, ''], call);
  if (branchMade.code !== 0) {
    if (await branchExists(repo, branch, call)) {
      return err(
        `cannot create worktree: branch ${branch} already exists (from an earlier run?). Delete it with \`git branch -D ${branch}\` or use another branch prefix`,
      );
    }
    return err(`cannot create branch ${branch} at ${base}: ${gitMessage(branchMade.stderr || branchMade.stdout)}`);
  }
  const made = await createWorktree(repo, path, [path, branch], signal);
  if (made.ok) return made;
  // Compare-and-delete: only while it still points where it was made (nothing of anyone's is on it).
  await runGit(repo, ['update-ref', '-d', `refs/heads/${branch}`, baseCommit]).catch(() => undefined);
  return err(`cannot create worktree ${path} on branch ${branch} from ${base}: ${made.error}`);
}

/**
 * A worktree at `path` for the existing branch `branch` (a resumed candidate whose folder is gone or
 * was half made). Whatever a killed `git worktree add` left at `path` (folder, admin entry) must
 * hold nothing of an agent's: it is removed first.
 */
export async function addWorktreeOnBranch(repo: string, opts: { path: string; branch: string; signal?: AbortSignal }): Promise<Result<void>> {
  const path = resolve(opts.path);
  if (!(await branchExists(repo, opts.branch, { signal: opts.signal }))) {
    return err(`cannot recreate worktree ${path}: branch ${opts.branch} does not exist`);
  }
  await discardWorktree(repo, path);
  // The short name: `worktree add` takes it as the branch (refs/heads/<name> only, never a ref under
  // refs/bestof/); a full ref name would check out its commit detached.
  const made = await createWorktree(repo, path, [path, opts.branch], opts.signal);
  return made.ok ? made : err(`cannot recreate worktree ${path} on ${opts.branch}: ${made.error}`);
}

/**
 * Recreates `branch` when it is missing (a run killed before it was made), at the first of `at`
 * (revisions, e.g. the kept ref, then the base commit) that names a commit. Returns the revision it
 * was made at, or undefined when the branch was there (then it is left as it is).
 */
export async function restoreMissingBranch(
  repo: string,
  branch: string,
  at: readonly string[],
  opts: GitCallOptions = {},
): Promise<Result<string | undefined>> {
  if (await branchExists(repo, branch, opts)) return ok(undefined);
  for (const rev of at) {
    const sha = await resolveCommit(repo, rev, opts);
    if (sha === undefined) continue;
    // Create-only (the old value must be "none"): never moves a branch someone made meanwhile.
    const made = await runGit(repo, ['update-ref', `refs/heads/${branch}`, sha, ''], opts);
    if (made.code !== 0 && !(await branchExists(repo, branch, opts))) {
      return err(`cannot recreate branch ${branch} at ${rev}: ${gitMessage(made.stderr || made.stdout)}`);
    }
    return ok(rev);
  }
  return err(`cannot recreate branch ${branch}: none of ${at.join(', ')} names a commit`);
}

async function branchExists(repo: string, branch: string, call: GitCallOptions): Promise<boolean> {
  return (await runGit(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], call)).code === 0;
}

/**
 * `git worktree add --no-checkout <addArgs>` under the lock, then the checkout outside it. A failed
 * attempt is undone (folder, admin entry) and tried again.
 */
async function createWorktree(repo: string, path: string, addArgs: readonly string[], signal: AbortSignal | undefined): Promise<Result<void>> {
  let problem = '';
  for (let attempt = 1; attempt <= WORKTREE_ATTEMPTS; attempt++) {
    let full: string | undefined;
    try {
      const made = await createOnce(repo, path, addArgs, signal);
      if (made.ok) return made;
      problem = made.error;
    } catch (error) {
      if (!signal?.aborted) problem = (error as Error).message;
    }
    // Asked before the half-made worktree is discarded, while what it wrote still fills the disk.
    if (!signal?.aborted) full = await fullDiskNote(path);
    await discardWorktree(repo, path).catch(() => undefined); // the next attempt says what is wrong
    if (signal?.aborted) return err('cancelled while creating it');
    // Trying again fills the same disk again.
    if (full !== undefined) return err(`${full}; git said: ${problem}`);
    if (attempt < WORKTREE_ATTEMPTS) await pause(RETRY_PAUSE_MS[attempt - 1] ?? 500, signal);
  }
  return err(`${problem} (tried ${WORKTREE_ATTEMPTS} times)`);
}

/** Below this many bytes free, a failed checkout is taken for a full disk. */
const FULL_DISK_BYTES = 1024 * 1024;

/**
 * `the disk of <folder> is full ...` when the disk that holds the worktree has (almost) no room
 * left, else undefined: git says only "unable to write file" when a checkout fills the disk.
 */
async function fullDiskNote(path: string): Promise<string | undefined> {
  let folder = path;
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  try {
    const { bavail, bsize } = await statfs(folder);
    const free = bavail * bsize;
    if (free >= FULL_DISK_BYTES) return undefined;
    return `the disk of ${folder} is full (No space left on device: ${Math.floor(free / 1024)} KiB free): make room there, or set BESTOF_WORKTREES_DIR to a folder on a disk with room`;
  } catch {
    return undefined;
  }
}

async function createOnce(repo: string, path: string, addArgs: readonly string[], signal: AbortSignal | undefined): Promise<Result<void>> {
  const call = { signal };
  try {
    await mkdir(dirname(path), { recursive: true });
  } catch (error) {
    return err(`cannot create the folder for worktree ${path}: ${(error as Error).message}`);
  }
  const add = await withWorktreesLock(repo, () => runGit(repo, ['worktree', 'add', '--quiet', '--no-checkout', ...addArgs], call), call);
  if (add.code !== 0) return err(gitMessage(add.stderr || add.stdout));
  // What `git worktree add` itself runs to check out (builtin/worktree.c): the index and the files
  // from HEAD, with the same attributes (eol, modes, symlinks). It touches only this worktree's own
  // index, files and branch, so it needs no lock. Run from the repository (`-C`): a new worktree has
  // no config of its own, so the repository's answer about drivers (exec.ts) holds, already known.
  const checkout = await runGit(repo, ['-C', path, 'reset', '--hard', '--quiet', '--no-recurse-submodules'], call);
  if (checkout.code !== 0) return err(`checkout failed: ${gitMessage(checkout.stderr || checkout.stdout)}`);
  await rememberNewWorktreeDirs(repo, path, call);
  return ok();
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * `git worktree remove`; with `force`, also when the worktree has changes, is locked, or its `.git`
 * link is broken (the caller has saved its work). A worktree whose folder is already gone is pruned
 * instead, which counts as success.
 *
 * A forced removal first renames the folder to `<path>.removing` and drops its admin entry, under
 * the lock, then deletes the files outside it: a kill in the middle leaves no half-deleted worktree
 * that a resume or a clean would take for an agent's work (the files it lost would be committed as
 * deletions), only that trash folder, which `removeWorktreeTrash` deletes. `deleteFiles` deletes
 * that folder instead of an `rm` here (the end of a run hands it to a process of its own).
 */
export async function removeWorktree(
  repo: string,
  path: string,
  opts: { force?: boolean; signal?: AbortSignal; deleteFiles?: (trash: string) => Promise<void> } = {},
): Promise<Result<void>> {
  const abs = resolve(path);
  const call = { signal: opts.signal };
  const removed = await withWorktreesLock(
    repo,
    async (common): Promise<Result<string | undefined>> => {
      if (!existsSync(abs)) {
        await runGit(repo, ['worktree', 'prune'], call);
        return ok(undefined);
      }
      const admins = adminDirsOf(common, abs);
      // Only a linked worktree of this repository, never a folder that holds the repository itself.
      if (opts.force && admins.length > 0 && !holdsFolder(abs, common)) {
        const trash = freeName(`${abs}${TRASH_SUFFIX}`);
        await rename(abs, trash);
        for (const admin of admins) await removeTree(admin);
        return ok(trash);
      }
      const args = ['worktree', 'remove', ...(opts.force ? ['--force', '--force'] : []), abs];
      const run = await runGit(repo, args, call);
      if (run.code !== 0) return err(`cannot remove worktree ${abs}: ${gitMessage(run.stderr || run.stdout)}`);
      return ok(undefined);
    },
    call,
  );
  if (!removed.ok) return removed;
  if (removed.value !== undefined) await (opts.deleteFiles ?? deleteNow)(removed.value);
  return ok();
}

const deleteNow = (folder: string): Promise<void> => removeTree(folder);

const TRASH_SUFFIX = '.removing';

/** Deletes what a forced removal of the worktree at `path` killed midway left (`<path>.removing*`); returns those folders. */
export async function removeWorktreeTrash(path: string): Promise<string[]> {
  const abs = resolve(path);
  const stem = `${basename(abs)}${TRASH_SUFFIX}`;
  let names: string[];
  try {
    names = readdirSync(dirname(abs));
  } catch {
    return [];
  }
  const trash = names
    .filter((name) => name === stem || (name.startsWith(`${stem}-`) && /^\d+$/.test(name.slice(stem.length + 1))))
    .map((name) => join(dirname(abs), name));
  for (const folder of trash) await removeTree(folder);
  return trash;
}

/** Is `inner` the folder `outer` or inside it? */
function holdsFolder(outer: string, inner: string): boolean {
  const rel = relative(canonicalPath(outer), canonicalPath(inner));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function freeName(path: string): string {
  if (!existsSync(path)) return path;
  for (let n = 2; ; n++) if (!existsSync(`${path}-${n}`)) return `${path}-${n}`;
}

/** `git worktree prune`: forgets worktrees whose folders were deleted. */
export async function pruneWorktrees(repo: string, opts: GitCallOptions = {}): Promise<void> {
  await withWorktreesLock(repo, () => runGit(repo, ['worktree', 'prune'], opts), opts);
}

/** All worktrees of the repository, the main one first (bare entries are skipped). */
export async function listWorktrees(repo: string, opts: GitCallOptions = {}): Promise<WorktreeInfo[]> {
  const out = await withWorktreesLock(repo, () => gitOut(repo, ['worktree', 'list', '--porcelain'], opts), opts);
  const result: WorktreeInfo[] = [];
  let cur: { path?: string; branch?: string; head?: string; bare?: boolean } = {};
  const flush = (): void => {
    if (cur.path !== undefined && !cur.bare) {
      result.push({ path: cur.path, head: cur.head ?? '', ...(cur.branch !== undefined ? { branch: cur.branch } : {}) });
    }
    cur = {};
  };
  for (const line of out.split('\n')) {
    if (line === '') {
      flush();
      continue;
    }
    const space = line.indexOf(' ');
    const key = space < 0 ? line : line.slice(0, space);
    const value = space < 0 ? '' : line.slice(space + 1);
    if (key === 'worktree') {
      flush();
      cur.path = value;
    } else if (key === 'HEAD') cur.head = value;
    else if (key === 'branch') cur.branch = value.startsWith('refs/heads/') ? value.slice('refs/heads/'.length) : value;
    else if (key === 'bare') cur.bare = true;
  }
  flush();
  return result;
}
