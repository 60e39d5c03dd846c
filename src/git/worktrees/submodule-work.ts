/**
 * Which submodules of a worktree hold work of the agent's: new commits inside, edited or untracked
 * files inside, or the submodule removed. bestof does not commit inside submodules
 * (../history/commit-filter.ts leaves them out of its commits, with a warning).
 *
 * git is never asked to look inside a submodule from the worktree (`status
 * --ignore-submodules=none`): it would run `git status` there under the submodule's own config and
 * attributes, which the agent can write (the submodule's git dir lies under the worktree's own,
 * writable in the sandbox), so a clean filter planted there would run outside the sandbox, inside
 * bestof's call. Instead the worktree's own status names the submodules whose commit moved or that
 * are gone (git only reads their HEAD: `--ignore-submodules=dirty`), and every other checked-out
 * submodule is asked on its own through runGitPinned (its git dir named explicitly, its own drivers
 * switched off, nothing written back), and so on into its own submodules.
 */
import { lstat, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { gitOut, runGitPinned, splitNul, type GitCallOptions, type PinnedRepo } from '../running/exec.js';
import { declaredSubmodules } from './submodules.js';

/** Submodules inside submodules deeper than this are not looked into: the one above counts as holding work. */
const MAX_DEPTH = 8;

/** The submodules of `worktree` (paths relative to it) that hold work; [] without a `.gitmodules`. */
export async function changedSubmodules(worktree: string, opts: GitCallOptions = {}): Promise<string[]> {
  if (!(await exists(join(worktree, '.gitmodules')))) return [];
  const entries = splitNul(
    await gitOut(worktree, ['status', '--porcelain=v2', '-z', '--untracked-files=no', '--ignore-submodules=dirty', '--no-renames'], opts),
  );
  // "1 <XY> <sub> <mH> <mI> <mW> <hH> <hI> <path>": <sub> is "S<c><m><u>" for a submodule.
  const moved = new Set<string>();
  for (const entry of entries) {
    const fields = entry.split(' ');
    if (fields[0] === '1' && fields[2]?.startsWith('S')) moved.add(fields.slice(8).join(' '));
  }
  const changed = [...moved];
  for (const { path } of await declaredSubmodules(worktree, opts)) {
    if (!moved.has(path) && (await holdsWork(await checkedOutRepo(worktree, path), 1, opts))) changed.push(path);
  }
  return changed.sort();
}

/** What the run and `bestof clean` say of such submodules (each adds what to do next). */
export function submoduleWorkSaid(submodules: readonly string[]): string {
  const one = submodules.length === 1;
  return `submodule${one ? '' : 's'} ${submodules.join(', ')} ${one ? 'holds' : 'hold'} edits or commits of its agent, which bestof does not commit`;
}

/**
 * Anything in the submodule's checkout that its HEAD does not hold, its own submodules included.
 * A checkout git cannot read (`broken`) counts as work: nothing is taken for empty that may not be.
 */
async function holdsWork(repo: PinnedRepo | 'none' | 'broken', depth: number, opts: GitCallOptions): Promise<boolean> {
  if (repo === 'none') return false;
  if (repo === 'broken' || depth > MAX_DEPTH) return true;
  const status = await runGitPinned(repo, ['status', '--porcelain=v1', '-z', '--untracked-files=normal', '--ignore-submodules=dirty', '--no-renames'], opts);
  if (status.code !== 0 || status.stdout !== '') return true;
  if (!(await exists(join(repo.workTree, '.gitmodules')))) return false;
  for (const { path } of await declaredSubmodules(repo.workTree, opts)) {
    if (await holdsWork(await checkedOutRepo(repo.workTree, path), depth + 1, opts)) return true;
  }
  return false;
}

/**
 * The git dir and work tree of the submodule at `path` under `root`: its `.git` file's `gitdir:`
 * (absorbed, as setup leaves it) or its `.git` folder. `none`: not checked out (no `.git`), or a
 * path that leaves `root`; `broken`: a `.git` that names no folder.
 */
async function checkedOutRepo(root: string, path: string): Promise<PinnedRepo | 'none' | 'broken'> {
  if (!isInside(path)) return 'none';
  const workTree = join(root, path);
  const dotGit = join(workTree, '.git');
  const info = await lstat(dotGit).catch(() => undefined);
  if (info === undefined) return 'none';
  if (info.isDirectory()) return { gitDir: dotGit, workTree };
  if (!info.isFile()) return 'broken';
  const named = /^gitdir: (.+)$/m.exec(await readFile(dotGit, 'utf8').catch(() => ''))?.[1]?.trim();
  if (!named) return 'broken';
  const gitDir = resolve(workTree, named);
  return (await stat(gitDir).catch(() => undefined))?.isDirectory() ? { gitDir, workTree } : 'broken';
}

/** A relative path that stays under the folder it is relative to. */
function isInside(path: string): boolean {
  const clean = normalize(path);
  return path !== '' && !isAbsolute(clean) && clean !== '..' && !clean.startsWith(`..${sep}`);
}

function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
