/**
 * Git's admin entries of linked worktrees (`<common dir>/worktrees/<name>/`), read and cleared
 * directly on disk: the states bestof must recover from (a kill -9 in the middle of
 * `git worktree add`, an agent's `rm .git`) are exactly those in which git's own commands refuse
 * to work. Changes to these entries happen under the repository's `worktrees` lock (repo-lock.ts).
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { gitDirsOf, gitOut, rememberGitDirs, type GitCallOptions } from '../running/exec.js';
import { withRepoLock } from '../running/repo-lock.js';
import { removeTree } from '../../owned-tree.js';

const commonDirs = new Map<string, string>();

/** The git common dir of `repo` (absolute): where refs, objects and every worktree's admin entry live. */
export async function commonGitDir(repo: string, opts: GitCallOptions = {}): Promise<string> {
  const key = resolve(repo);
  const known = commonDirs.get(key);
  if (known !== undefined && existsSync(known)) return known;
  if (known === undefined) {
    // Already asked, with the same flag, for the git calls there (gitDirsOf: the driver look-up of
    // any call in that folder asks it): no git process of its own.
    const dirs = await gitDirsOf(key, opts.signal);
    if (dirs !== undefined && existsSync(dirs.commonDir)) {
      commonDirs.set(key, dirs.commonDir);
      return dirs.commonDir;
    }
  }
  const out = await gitOut(key, ['rev-parse', '--path-format=absolute', '--git-common-dir'], opts);
  const dir = out.trim();
  commonDirs.set(key, dir);
  return dir;
}

/**
 * Runs `fn` holding the lock of the repository's worktree metadata: every change to
 * `<common>/worktrees/` (add, remove, prune, repair) and every full listing of it, so that no git
 * command of bestof's reads another's half-written entry.
 */
export async function withWorktreesLock<T>(repo: string, fn: (commonDir: string) => Promise<T>, opts: GitCallOptions = {}): Promise<T> {
  const common = await commonGitDir(repo, opts);
  return withRepoLock(common, 'worktrees', () => fn(common), opts.signal ? { signal: opts.signal } : {});
}

/** The same folder, spelled as git spells it (symlinks resolved) when it exists. */
export function canonicalPath(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    // Gone: resolve what is left of it (its parent may still exist, e.g. /tmp -> /private/tmp).
    try {
      return join(realpathSync(dirname(abs)), basename(abs));
    } catch {
      return abs;
    }
  }
}

/** The first line of a small file, trimmed; undefined when it cannot be read. */
export function readLine(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').split('\n')[0]?.trim();
  } catch {
    return undefined;
  }
}

/** The admin entry a worktree's `.git` file names (`gitdir: <path>`), when `.git` is such a file. */
export function adminDirNamedBy(worktree: string): string | undefined {
  const dotGit = join(worktree, '.git');
  try {
    if (!lstatSync(dotGit).isFile()) return undefined;
  } catch {
    return undefined;
  }
  const line = readLine(dotGit);
  if (!line?.startsWith('gitdir:')) return undefined;
  const target = line.slice('gitdir:'.length).trim();
  return isAbsolute(target) ? target : resolve(worktree, target);
}

/**
 * A worktree bestof has just made: its git dirs are the repository's common dir and the admin entry
 * its fresh `.git` file names, remembered for gitDirsOf (the guard and the driver look-up ask them
 * before the agent's first call: one `git rev-parse` fewer per candidate). Only when the two agree
 * with git's own layout, in the same spelling git prints (`<common>/worktrees/<name>`); otherwise
 * git is asked as before.
 */
export async function rememberNewWorktreeDirs(repo: string, worktree: string, opts: GitCallOptions = {}): Promise<void> {
  const admin = adminDirNamedBy(worktree);
  const repoDirs = await gitDirsOf(resolve(repo), opts.signal);
  if (admin === undefined || repoDirs === undefined || dirname(admin) !== join(repoDirs.commonDir, 'worktrees')) return;
  rememberGitDirs(worktree, { commonDir: repoDirs.commonDir, gitDir: admin });
}

/** Is `admin` a direct child of `<common>/worktrees/`? (A `.git` file may name any folder at all.) */
export function isAdminEntryOf(common: string, admin: string): boolean {
  return canonicalPath(dirname(admin)) === canonicalPath(join(common, 'worktrees'));
}

/** Which worktree folder an admin entry belongs to (from its `gitdir` file), or undefined when it does not say. */
export function worktreeOfAdminDir(admin: string): string | undefined {
  const gitdir = readLine(join(admin, 'gitdir'));
  if (!gitdir) return undefined;
  return canonicalPath(dirname(isAbsolute(gitdir) ? gitdir : resolve(admin, gitdir)));
}

/**
 * Every admin entry of `worktree`: those whose `gitdir` file points at it, the one its `.git`
 * file names, and the leftovers of a `git worktree add` killed before it wrote `gitdir` (no
 * `gitdir` file, and the name git gives this folder's entry: its basename, maybe with a number).
 * A leftover of that last kind breaks every later `git worktree` command of the repository.
 */
export function adminDirsOf(common: string, worktree: string): string[] {
  const target = canonicalPath(worktree);
  const root = join(common, 'worktrees');
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    names = [];
  }
  const stem = basename(target);
  const found = new Set<string>();
  for (const name of names) {
    const admin = join(root, name);
    const owner = worktreeOfAdminDir(admin);
    if (owner === target) found.add(admin);
    else if (owner === undefined && name.startsWith(stem) && /^\d*$/.test(name.slice(stem.length))) found.add(admin);
  }
  const named = adminDirNamedBy(target);
  if (named !== undefined && isAdminEntryOf(common, named) && existsSync(named)) {
    const owner = worktreeOfAdminDir(named);
    if (owner === undefined || owner === target) found.add(named);
  }
  return [...found];
}

/**
 * Removes a worktree that holds nothing of an agent's (a half-made one, or one bestof just failed
 * to make): its folder and its admin entries, under the worktrees lock. The branch is left alone.
 */
export async function discardWorktree(repo: string, worktree: string, opts: GitCallOptions = {}): Promise<void> {
  await withWorktreesLock(
    repo,
    async (common) => {
      for (const admin of adminDirsOf(common, worktree)) await removeTree(admin);
      await removeTree(resolve(worktree));
    },
    opts,
  );
}

/**
 * Worktree folders other than `except` whose HEAD is `refs/heads/<branch>` (the main checkout
 * included), read from the admin entries: git allows a branch in one worktree only.
 */
export function worktreesOnBranch(common: string, branch: string, except: string): string[] {
  const ref = `ref: refs/heads/${branch}`;
  const skip = canonicalPath(except);
  const found: string[] = [];
  let names: string[];
  try {
    names = readdirSync(join(common, 'worktrees'));
  } catch {
    names = [];
  }
  for (const name of names) {
    const admin = join(common, 'worktrees', name);
    const owner = worktreeOfAdminDir(admin);
    if (owner !== undefined && owner !== skip && existsSync(owner) && readLine(join(admin, 'HEAD')) === ref) found.push(owner);
  }
  if (readLine(join(common, 'HEAD')) === ref) found.push(dirname(common));
  return found;
}
