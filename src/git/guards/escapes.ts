/**
 * What in a worktree would escape a commit of it: things whose content is not in the commit, so
 * that the checks (which read the disk) would score what the merge does not bring, or what anyone
 * can change later without a commit.
 *
 * - a symbolic link whose target is outside the worktree: absolute (even to the worktree itself:
 *   after the merge it would point into a folder that is gone), relative and climbing out with
 *   `..`, or a link to a link that does one of these, or through a linked folder leads out. The
 *   check passes by reading the file it points at; after the merge, main's code lives in `/tmp` or
 *   under the user's `.git/`, where any later agent can rewrite it without a commit.
 * - a nested git repository (a folder with its own `.git`): `git add -A` stages it as a gitlink
 *   (mode 160000), which holds only a commit name; without a `.gitmodules` entry, nothing can ever
 *   fetch that commit, and main after the merge has an empty folder where the checks read files.
 *
 * Used by ../history/commit-filter.ts, before `git add`.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Links followed in a chain before it counts as leading out (the kernel's own limit is 40). */
const MAX_HOPS = 40;

/**
 * Where the link at `path` (relative to `worktree`) leads when that is outside the worktree:
 * the target as the link spells it, and, when the chain or a linked folder is what leads out,
 * where it ends (`../../x`, `/tmp/x`, `b -> /tmp/x`). Undefined for a link that stays inside
 * (also a dangling one that would stay inside).
 */
export async function linkLeadsOut(worktree: string, path: string): Promise<string | undefined> {
  const root = resolve(worktree);
  const own = await readlink(join(root, path)).catch(() => undefined);
  if (own === undefined) return undefined;
  // The chain, read by hand: each link's text is what a commit would hold, so it is judged as text.
  let current = join(root, path);
  let target = own;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    if (isAbsolute(target)) return target === own ? own : `${own} (through ${relative(root, current)} -> ${target})`;
    const next = resolve(dirname(current), target);
    if (!isInside(root, next)) return target === own ? own : `${own} (through ${relative(root, current)} -> ${target})`;
    const info = await lstat(next).catch(() => undefined);
    if (!info?.isSymbolicLink()) break;
    current = next;
    const more = await readlink(next).catch(() => undefined);
    if (more === undefined) break;
    target = more;
  }
  // A folder on the way that is itself a link (`lib -> /tmp`, then `a -> lib/x`): the kernel's answer.
  const [real, realRoot] = await Promise.all([realpath(join(root, path)).catch(() => undefined), realpath(root).catch(() => root)]);
  if (real !== undefined && !isInside(realRoot, real)) return `${own} (which leads to ${real})`;
  return undefined;
}

/** A folder of the worktree with a `.git` of its own (folder or `gitdir:` file): a repository inside it. */
export async function isNestedRepo(worktree: string, path: string): Promise<boolean> {
  return (await lstat(join(worktree, path, '.git')).catch(() => undefined)) !== undefined;
}

/** What the commit filter says of a link that leads out, for the candidate and the user. */
export function linkOutDetail(leadsTo: string): string {
  return `is a symbolic link to ${leadsTo}, outside the worktree: commit the file itself, not a link to it`;
}

/** What the commit filter says of a nested repository (or a gitlink no `.gitmodules` declares). */
export const NESTED_REPO_DETAIL =
  'is a nested git repository (a folder with its own .git, no .gitmodules entry), whose files a commit does not hold: commit its files, not a repository';

function isInside(root: string, full: string): boolean {
  return full === root || full.startsWith(root.endsWith(sep) ? root : root + sep);
}
