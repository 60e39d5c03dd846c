/**
 * Work left in a worktree that no commit holds: what a run finds when it is about to remove a
 * worktree (after an agent's last commit failed, or something wrote after it). It is saved in a
 * commit of its own on top of the worktree's HEAD, made through a private index, so that neither
 * the branch nor the worktree's index moves (the candidate's scored commit stays what it was).
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { err, ok, type Result } from '../../result.js';
import { gitMessage, gitOut, identityArgs, runGit, splitNul, withPathspecFile } from '../running/exec.js';
import { filesToLeaveOut, type SecretValues } from './commit-filter.js';
import { excludeLiteralPathspec } from '../worktrees/paths.js';

export interface LeftoverOptions {
  /** Setup's files: never the candidate's work. */
  readonly setupPaths: readonly string[];
  /** Files left out of every commit (too large, holding a secret: ./commit-filter.ts) are left out here too: they are not unsaved work. */
  readonly secrets?: SecretValues | undefined;
  readonly maxFileSizeBytes?: number | undefined;
}

/** Why a left-out entry is the agent's work that no commit can hold (../guards/escapes.ts), unlike a file too large or holding a secret. */
const ESCAPING = new Set(['nested_repo', 'link_out']);

/**
 * What the commit filter leaves out because no commit can hold it (a nested git repository, a link
 * out of the worktree: ../guards/escapes.ts), as `path (why)`: the agent's work all the same, so the
 * worktree that holds it is kept rather than removed with it.
 */
export async function workNoCommitHolds(worktree: string, opts: LeftoverOptions): Promise<string[]> {
  const skipped = await filesToLeaveOut(worktree, { excludePaths: opts.setupPaths, secrets: opts.secrets, maxFileSizeBytes: opts.maxFileSizeBytes });
  return skipped
    .filter((file) => ESCAPING.has(file.reason))
    .map((file) => `${file.path} (${file.reason === 'nested_repo' ? 'a nested git repository' : 'a link out of the worktree'})`);
}

/** Setup's files and the files the commit filter leaves out. */
async function notWork(worktree: string, opts: LeftoverOptions): Promise<string[]> {
  const skipped = await filesToLeaveOut(worktree, { excludePaths: opts.setupPaths, secrets: opts.secrets, maxFileSizeBytes: opts.maxFileSizeBytes });
  return [...opts.setupPaths, ...skipped.map((file) => file.path)];
}

/** Paths `git add -A` would stage (setup paths and filtered files excluded): work on disk that no commit holds. Undefined when git cannot tell. */
export async function unsavedPaths(worktree: string, opts: LeftoverOptions): Promise<string[] | undefined> {
  // The common case at the end of a run, first and in one call: nothing but setup's files changed.
  const status = await runGit(worktree, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all']);
  if (status.code !== 0) return undefined;
  const setup = opts.setupPaths.map((path) => path.replace(/\/+$/, ''));
  const changed = splitNul(status.stdout).map((entry) => entry.slice(3));
  if (changed.every((path) => setup.some((s) => path === s || path.startsWith(`${s}/`)))) return [];
  const excluded = await notWork(worktree, opts);
  const run = await withPathspecFile([':/', ...excluded.map(excludeLiteralPathspec)], (from) =>
    runGit(worktree, ['add', '-A', '--dry-run', '--ignore-errors', ...from]),
  );
  if (run.code !== 0 && run.stdout.trim() === '') return undefined;
  return run.stdout
    .split('\n')
    .map((line) => /^(?:add|remove) '(.*)'$/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
}

/** A commit on top of HEAD with everything on disk (setup paths excluded), made without touching the worktree's index or any ref. */
export async function saveLeftoverCommit(worktree: string, opts: LeftoverOptions & { readonly message: string }): Promise<Result<string>> {
  const dir = await mkdtemp(join(tmpdir(), 'bestof-leftover-'));
  try {
    const indexFile = join(dir, 'index');
    const gitDir = (await gitOut(worktree, ['rev-parse', '--absolute-git-dir'])).trim();
    // Start from the worktree's own index when it can be read (faster: unchanged files are not hashed again).
    await copyFile(join(gitDir, 'index'), indexFile).catch(() => undefined);
    const call = { indexFile };
    const excluded = await notWork(worktree, opts);
    const add = await withPathspecFile([':/', ...excluded.map(excludeLiteralPathspec)], (from) => runGit(worktree, ['add', '-A', ...from], call));
    if (add.code !== 0 && !/^The following paths are ignored/.test(add.stderr)) return err(`git add failed: ${gitMessage(add.stderr || add.stdout)}`);
    const tree = await runGit(worktree, ['write-tree'], call);
    if (tree.code !== 0) return err(`git write-tree failed: ${gitMessage(tree.stderr)}`);
    const head = await runGit(worktree, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
    const parent = head.code === 0 ? ['-p', head.stdout.trim()] : [];
    const identity = await identityArgs(worktree);
    const commit = await runGit(worktree, [...identity, 'commit-tree', tree.stdout.trim(), ...parent, '-m', opts.message]);
    if (commit.code !== 0) return err(`git commit-tree failed: ${gitMessage(commit.stderr)}`);
    return ok(commit.stdout.trim());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
