/** Size and text of a candidate's change. */
import { gitDirsOf, gitOut, splitNul, type GitCallOptions } from './exec.js';
import { isFullObjectName } from './object-name.js';

export interface DiffStat {
  /** Changed files; a rename counts once. */
  readonly files: number;
  readonly insertions: number;
  readonly deletions: number;
  /** Changed paths (for a rename, the new path). */
  readonly paths: string[];
}

/** `git diff --numstat -z -M <from> <to>`; binary files count as 0 insertions / 0 deletions. */
export async function diffStat(repo: string, from: string, to: string, opts: GitCallOptions = {}): Promise<DiffStat> {
  const out = await gitOut(repo, ['diff', '--numstat', '-z', '-M', '--no-ext-diff', from, to, '--'], opts);
  const parts = splitNul(out);
  let insertions = 0;
  let deletions = 0;
  const paths: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    // "<added>\t<deleted>\t<path>" or, for a rename, "<added>\t<deleted>\t" then old and new path as two fields.
    const entry = parts[i] ?? '';
    const t1 = entry.indexOf('\t');
    const t2 = entry.indexOf('\t', t1 + 1);
    const added = entry.slice(0, t1);
    const deleted = entry.slice(t1 + 1, t2);
    let path = entry.slice(t2 + 1);
    if (path === '') {
      path = parts[i + 2] ?? '';
      i += 2;
    }
    insertions += added === '-' ? 0 : Number.parseInt(added, 10) || 0;
    deletions += deleted === '-' ? 0 : Number.parseInt(deleted, 10) || 0;
    paths.push(path);
  }
  return { files: paths.length, insertions, deletions, paths };
}

/** The unified diff between two revisions (no colour, no external diff driver). */
export async function diffText(repo: string, from: string, to: string, opts: GitCallOptions = {}): Promise<string> {
  return gitOut(repo, ['diff', '--no-color', '--no-ext-diff', from, to, '--'], opts);
}

/** How a path differs between two revisions (`git diff --name-status --no-renames`). */
export interface PathChange {
  readonly path: string;
  /** M modified, A added, D deleted, T type changed (file <-> symlink <-> submodule). */
  readonly status: 'M' | 'A' | 'D' | 'T';
}

const PATH_STATUSES: ReadonlySet<string> = new Set(['M', 'A', 'D', 'T']);

/**
 * The paths under `pathspecs` that differ between the trees of `from` and `to`, in git's order.
 * A tree-to-tree diff: its cost grows with what changed, not with the size of the repository.
 * `pathspecs` must not be empty (git would read that as every path).
 */
export async function changedPaths(repo: string, from: string, to: string, pathspecs: readonly string[], opts: GitCallOptions = {}): Promise<PathChange[]> {
  if (pathspecs.length === 0) throw new Error('changedPaths: an empty pathspec list would mean every path');
  // By the repository's object store (its common dir: every worktree of it, the user's checkout
  // too, diffs the same trees; the pathspecs are relative to a worktree's root, which every caller
  // passes), and by the commits' trees as far as bestof knows two commits to share one.
  const store = isFullObjectName(from) && isFullObjectName(to) ? ((await gitDirsOf(repo, opts.signal))?.commonDir ?? repo) : undefined;
  const key = store !== undefined ? [store, sameTree.get(from) ?? from, sameTree.get(to) ?? to, ...pathspecs].join('\0') : undefined;
  const known = key !== undefined ? changedPathsByCommits.get(key) : undefined;
  if (known) return [...known];
  const changes = await askChangedPaths(repo, from, to, pathspecs, opts);
  if (key !== undefined) {
    if (changedPathsByCommits.size >= MAX_REMEMBERED) changedPathsByCommits.clear();
    changedPathsByCommits.set(key, changes);
  }
  return [...changes];
}

/**
 * Answers of changedPaths between two full commit names, kept for the process: the frozen and
 * editable checks of a candidate's commit are asked again, with the same commits and pathspecs,
 * at the end of the candidate and at the selection (a git process each). Two commits' trees never
 * change, and bestof's git never follows replace refs (GIT_NO_REPLACE_OBJECTS, ./exec.ts), so the
 * answer cannot either.
 */
const changedPathsByCommits = new Map<string, readonly PathChange[]>();
const MAX_REMEMBERED = 1000;

/** A commit -> an earlier commit with the same tree (a reword: ./checkpoint.ts), for changedPaths' answers. */
const sameTree = new Map<string, string>();

/**
 * `commit` has exactly the tree of `original` (bestof made it so: a reworded message, the same tree
 * and parents): changedPaths answers for it what it answered for `original`, without a git process.
 * Both must be full commit names.
 */
export function rememberSameTree(commit: string, original: string): void {
  if (!isFullObjectName(commit) || !isFullObjectName(original) || commit === original) return;
  if (sameTree.size >= MAX_REMEMBERED) sameTree.clear();
  sameTree.set(commit, sameTree.get(original) ?? original);
}

async function askChangedPaths(repo: string, from: string, to: string, pathspecs: readonly string[], opts: GitCallOptions): Promise<PathChange[]> {
  const out = await gitOut(repo, ['diff', '--name-status', '--no-renames', '-z', '--no-ext-diff', from, to, '--', ...pathspecs], opts);
  const parts = splitNul(out);
  const changes: PathChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = (parts[i] ?? '').charAt(0);
    const path = parts[i + 1] ?? '';
    if (!PATH_STATUSES.has(status)) throw new Error(`unexpected git diff status ${JSON.stringify(parts[i])} for ${path}`);
    changes.push({ path, status: status as PathChange['status'] });
  }
  return changes;
}
