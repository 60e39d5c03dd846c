/** Candidate worktrees: one per candidate, on its own branch, outside the main working tree. */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { err, ok, type Result } from '../result.js';
import { gitMessage, gitOut, runGit, type GitCallOptions } from './exec.js';
import { resolveCommit } from './repo.js';

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

/** `git worktree add --quiet --no-track -b <branch> <path> <base>`, creating the parent folders of `path`. */
export async function addWorktree(repo: string, opts: AddWorktreeOptions): Promise<Result<void>> {
  const { branch, base, signal } = opts;
  const path = resolve(opts.path);
  const call = { signal };
  if ((await resolveCommit(repo, base, call)) === undefined) {
    return err(`cannot create worktree for ${branch}: base ${base} is not a commit in ${repo}`);
  }
  const exists = await runGit(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], call);
  if (exists.code === 0) {
    return err(`cannot create worktree: branch ${branch} already exists (from an earlier run?). Delete it with \`git branch -D ${branch}\` or use another branch prefix`);
  }
  if (existsSync(path) && readdirSync(path).length > 0) {
    return err(`cannot create worktree: ${path} already exists and is not empty; remove it or choose another worktree folder`);
  }
  try {
    await mkdir(dirname(path), { recursive: true });
  } catch (error) {
    return err(`cannot create the folder for worktree ${path}: ${(error as Error).message}`);
  }
  // --no-track: a candidate branch started from origin/main must not track (or push to) it.
  const run = await runGit(repo, ['worktree', 'add', '--quiet', '--no-track', '-b', branch, path, base], call);
  if (run.code !== 0) {
    return err(`cannot create worktree ${path} on branch ${branch} from ${base}: ${gitMessage(run.stderr || run.stdout)}`);
  }
  return ok();
}

/**
 * `git worktree remove`; with `force`, also when the worktree has changes or is locked.
 * A worktree whose folder is already gone is pruned instead, which counts as success.
 */
export async function removeWorktree(
  repo: string,
  path: string,
  opts: { force?: boolean; signal?: AbortSignal } = {},
): Promise<Result<void>> {
  const abs = resolve(path);
  const call = { signal: opts.signal };
  if (!existsSync(abs)) {
    await pruneWorktrees(repo, call);
    return ok();
  }
  const args = ['worktree', 'remove', ...(opts.force ? ['--force', '--force'] : []), abs];
  const run = await runGit(repo, args, call);
  if (run.code !== 0) {
    return err(`cannot remove worktree ${abs}: ${gitMessage(run.stderr || run.stdout)}`);
  }
  return ok();
}

/** `git worktree prune`: forgets worktrees whose folders were deleted. */
export async function pruneWorktrees(repo: string, opts: GitCallOptions = {}): Promise<void> {
  await gitOut(repo, ['worktree', 'prune'], opts);
}

/** All worktrees of the repository, the main one first (bare entries are skipped). */
export async function listWorktrees(repo: string, opts: GitCallOptions = {}): Promise<WorktreeInfo[]> {
  const out = await gitOut(repo, ['worktree', 'list', '--porcelain'], opts);
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
