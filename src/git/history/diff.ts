/** Size and text of a candidate's change. */
import { gitDirsOf, gitOut, runGit, splitNul, type GitCallOptions } from '../running/exec.js';
import { isFullObjectName } from '../running/object-name.js';
import { literalPathspec } from '../worktrees/paths.js';

export interface DiffStat {
  /** Changed files; a rename counts once. */
  readonly files: number;
  readonly insertions: number;
  readonly deletions: number;
  /** Changed paths (for a rename, the new path). */
  readonly paths: string[];
  /** Paths that are text in `from` and binary in `to` (a stray NUL byte): a diff shows only "Binary files differ". */
  readonly madeBinary: string[];
}

/**
 * A binary file's size in lines, for the diff size (`[select] tie_break = "diff_size"`): one line per
 * this many bytes, rounded up. About a line of code with its newline; a binary change counts as
 * its old version removed and its new one added, as git stores and shows it.
 */
export const BINARY_BYTES_PER_LINE = 32;

/** The git object name of the empty tree: what a tree diff against "nothing" starts from. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * `git diff --numstat -z -M <from> <to>`. git counts a binary file as `-`, no lines: here it counts
 * as rewritten whole, its old version removed and its new one added, each by its bytes
 * (BINARY_BYTES_PER_LINE) or by the lines it holds read as text, whichever is more. So a change is
 * never 0 lines, and one NUL byte in a file of code cannot hide its lines from the diff size: it
 * counts at least what the same change without it would. A file that was text in
 * `from` and is binary in `to` is named in `madeBinary`. Binary files cost up to four more git
 * processes, only when there are some.
 */
export async function diffStat(repo: string, from: string, to: string, opts: GitCallOptions = {}): Promise<DiffStat> {
  const entries = parseNumstat(await gitOut(repo, ['diff', '--numstat', '-z', '-M', '--no-ext-diff', from, to, '--'], opts));
  const binary = entries.filter((entry) => entry.added === undefined);
  const counted = binary.length > 0 ? await binaryCounts(repo, from, to, binary, opts) : undefined;
  let insertions = 0;
  let deletions = 0;
  for (const entry of entries) {
    const lines = entry.added === undefined ? counted?.lines.get(entry.path) : entry;
    insertions += lines?.added ?? 0;
    deletions += lines?.deleted ?? 0;
  }
  return { files: entries.length, insertions, deletions, paths: entries.map((entry) => entry.path), madeBinary: counted?.madeBinary ?? [] };
}

/** The diff size as the run's events record it: madeBinary only when there is one. */
export function diffSummary(stat: DiffStat): { files: number; insertions: number; deletions: number; madeBinary?: string[] } {
  return { files: stat.files, insertions: stat.insertions, deletions: stat.deletions, ...(stat.madeBinary.length > 0 ? { madeBinary: stat.madeBinary } : {}) };
}

interface NumstatEntry {
  /** The new path (of a rename too). */
  readonly path: string;
  /** The old path: differs only for a rename. */
  readonly oldPath: string;
  /** Undefined for a binary file (`-`). */
  readonly added: number | undefined;
  readonly deleted: number | undefined;
}

function parseNumstat(out: string): NumstatEntry[] {
  const parts = splitNul(out);
  const entries: NumstatEntry[] = [];
  for (let i = 0; i < parts.length; i++) {
    // "<added>\t<deleted>\t<path>" or, for a rename, "<added>\t<deleted>\t" then old and new path as two fields.
    const entry = parts[i] ?? '';
    const t1 = entry.indexOf('\t');
    const t2 = entry.indexOf('\t', t1 + 1);
    const added = entry.slice(0, t1);
    const deleted = entry.slice(t1 + 1, t2);
    let path = entry.slice(t2 + 1);
    let oldPath = path;
    if (path === '') {
      oldPath = parts[i + 1] ?? '';
      path = parts[i + 2] ?? '';
      i += 2;
    }
    entries.push({
      path,
      oldPath,
      added: added === '-' ? undefined : Number.parseInt(added, 10) || 0,
      deleted: deleted === '-' ? undefined : Number.parseInt(deleted, 10) || 0,
    });
  }
  return entries;
}

/**
 * Lines of the binary entries (by the new path), by bytes and by lines read as text, whichever is
 * more; and those that were text in `from`. Asked by literal pathspecs of only these paths.
 */
async function binaryCounts(
  repo: string,
  from: string,
  to: string,
  binary: readonly NumstatEntry[],
  opts: GitCallOptions,
): Promise<{ lines: Map<string, { added: number; deleted: number }>; madeBinary: string[] }> {
  if (binary.length > MAX_PATHSPECS) {
    // Thousands of binary files (an image folder): counted in parts, each within argv's limits.
    const parts = await Promise.all(chunks(binary, MAX_PATHSPECS).map((part) => binaryCounts(repo, from, to, part, opts)));
    return { lines: new Map(parts.flatMap((part) => [...part.lines])), madeBinary: parts.flatMap((part) => part.madeBinary) };
  }
  const oldPaths = binary.map((entry) => literalPathspec(entry.oldPath));
  const newPaths = binary.map((entry) => literalPathspec(entry.path));
  // git diff, ls-tree and grep read no pathspec file: the paths go on argv.
  const [lineCounts, oldSizes, newSizes, oldKinds] = await Promise.all([
    linesAsText(repo, [from, to], [...new Set([...oldPaths, ...newPaths])], opts),
    blobSizes(repo, from, oldPaths, opts),
    blobSizes(repo, to, newPaths, opts),
    // Each old path against nothing: `-` where git takes it for binary, numbers where for text.
    gitOut(repo, ['diff', '--numstat', '-z', '--no-renames', '--no-ext-diff', EMPTY_TREE, from, '--', ...oldPaths], opts).then(parseNumstat),
  ]);
  const textBefore = new Set(oldKinds.filter((entry) => entry.added !== undefined).map((entry) => entry.path));
  const lines = new Map<string, { added: number; deleted: number }>();
  const madeBinary: string[] = [];
  for (const entry of binary) {
    const [oldBytes, newBytes] = [oldSizes.get(entry.oldPath), newSizes.get(entry.path)];
    const added = newBytes === undefined ? 0 : Math.max(Math.ceil(newBytes / BINARY_BYTES_PER_LINE), lineCounts.get(`${to}:${entry.path}`) ?? 0);
    const deleted = oldBytes === undefined ? 0 : Math.max(Math.ceil(oldBytes / BINARY_BYTES_PER_LINE), lineCounts.get(`${from}:${entry.oldPath}`) ?? 0);
    // An empty file made binary and back is not possible; an empty side counts 0, the other at least 1.
    lines.set(entry.path, added + deleted > 0 ? { added, deleted } : { added: 1, deleted: 0 });
    if (textBefore.has(entry.oldPath) && newBytes !== undefined) madeBinary.push(entry.path);
  }
  return { lines, madeBinary };
}

/**
 * How many lines each file holds, read as text (`git grep --text --count` of every line), by
 * `<rev>:<path>`: a binary file's lines when it is code behind a NUL byte. (`git diff --numstat
 * --text` still prints `-` for a binary file.)
 */
async function linesAsText(repo: string, revs: readonly string[], pathspecs: readonly string[], opts: GitCallOptions): Promise<Map<string, number>> {
  const run = await runGit(repo, ['grep', '--text', '--count', '-z', '--no-textconv', '-e', '', ...revs, '--', ...pathspecs], opts);
  // "<rev>:<path>\0<count>\n"; exit 1 when no line matched (only empty files).
  const counts = new Map<string, number>();
  if (run.code !== 0) return counts;
  for (const record of run.stdout.split('\n')) {
    const cut = record.lastIndexOf('\0');
    if (cut > 0) counts.set(record.slice(0, cut), Number(record.slice(cut + 1)) || 0);
  }
  return counts;
}

/** Binary entries asked of git at once. */
const MAX_PATHSPECS = 500;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The sizes of the blobs at these literal pathspecs in `rev` (a path absent there has none). */
async function blobSizes(repo: string, rev: string, pathspecs: readonly string[], opts: GitCallOptions): Promise<Map<string, number>> {
  const listing = await gitOut(repo, ['ls-tree', '-r', '-l', '-z', '--full-tree', rev, '--', ...pathspecs], opts);
  const sizes = new Map<string, number>();
  for (const entry of splitNul(listing)) {
    // "<mode> <type> <object> <size>\t<path>"; a gitlink's size is "-".
    const tab = entry.indexOf('\t');
    const size = Number(entry.slice(0, tab).trim().split(/\s+/)[3]);
    if (tab > 0 && Number.isFinite(size)) sizes.set(entry.slice(tab + 1), size);
  }
  return sizes;
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
 * change, and bestof's git never follows replace refs (GIT_NO_REPLACE_OBJECTS, ../running/exec.ts), so the
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
