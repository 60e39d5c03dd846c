/**
 * Paths inside a worktree: pathspecs, and putting chosen paths back as a revision has them
 * (index and disk), removing them, cleaning untracked files. These are the git steps of
 * src/checks/frozen.ts; which paths, and why, stays there.
 *
 * Every list of paths goes to git through a pathspec file, so thousands of paths (or paths
 * with newlines) never hit the command-line length limit.
 */
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GitCommandError, gitDirsOf, gitOut, runGit, splitNul, withPathspecFile, type GitCallOptions } from '../running/exec.js';
import { openUpTree } from '../../owned-tree.js';

/** Pathspec matching exactly this path (relative to the worktree root) and, if it is a directory, what is under it. */
export function literalPathspec(path: string): string {
  return `:(top,literal)${path}`;
}

/** Same, as an exclusion. */
export function excludeLiteralPathspec(path: string): string {
  return `:(top,exclude,literal)${path}`;
}

/**
 * Pathspec for a glob relative to the worktree root (`*` does not cross `/`, `**` does); `''`
 * is the whole worktree.
 */
export function globPathspec(pattern: string): string {
  return `:(top,glob)${pattern}`;
}

/**
 * A gitignore-syntax pattern (for `git clean -e`) that matches exactly this path from the
 * worktree root: anchored with `/`, wildcard and special characters escaped.
 */
export function exactIgnorePattern(path: string): string {
  if (/[\n\r]/.test(path)) throw new Error(`cannot express a path with a line break as an ignore pattern: ${JSON.stringify(path)}`);
  const clean = path.replace(/^\.\/+/, '').replace(/^\/+/, '');
  return `/${clean.replace(/[\\*?[\]!# ]/g, '\\$&')}`;
}

/** `git rm --cached -r`: takes these paths (literal, relative to the root) out of the index; the files stay on disk. */
export async function removeFromIndex(worktree: string, paths: readonly string[], opts: GitCallOptions = {}): Promise<void> {
  if (paths.length === 0) return;
  await withPathspecFile(paths.map(literalPathspec), (from) => gitOut(worktree, ['rm', '--quiet', '--cached', '-r', '-f', '--ignore-unmatch', ...from], opts));
}

/**
 * `git checkout <rev> -- <paths>`: these paths (literal, relative to the root) become exactly as
 * in `rev`, in the index and on disk; a symlink standing where a file was is replaced, never
 * written through.
 */
export async function checkoutPathsFrom(worktree: string, rev: string, paths: readonly string[], opts: GitCallOptions = {}): Promise<void> {
  if (paths.length === 0) return;
  await withOpenFolders(worktree, () => withPathspecFile(paths.map(literalPathspec), (from) => gitOut(worktree, ['checkout', '--quiet', rev, ...from], opts)));
}

/**
 * A git step that writes files in the worktree. When it fails for want of permission in a folder
 * (an agent's `chmod 000`, a read-only module cache such as Go's), the worktree's folders are
 * opened up (../../owned-tree.ts: they are this user's) and the step runs once more.
 */
async function withOpenFolders<T>(worktree: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof GitCommandError) || !/Permission denied/.test(error.run.stderr) || (await openUpTree(worktree)).length === 0) throw error;
    return step();
  }
}

export interface CleanUntrackedOptions {
  /** Where to clean. @default the whole worktree (`:/`); an empty list is refused, since git would read it as everything. */
  readonly pathspecs?: readonly string[];
  /** Untracked files that must survive, literal paths relative to the root. @default [] */
  readonly keep?: readonly string[];
  /** Also remove ignored files (`-x`: node_modules, build output). @default false */
  readonly ignored?: boolean;
  /** Also remove nested git repositories (`-ff`). @default false */
  readonly nestedRepos?: boolean;
  readonly signal?: AbortSignal | undefined;
}

/** `git clean -d`: removes untracked files and folders, except `keep`. */
export async function cleanUntracked(worktree: string, opts: CleanUntrackedOptions = {}): Promise<void> {
  const pathspecs = opts.pathspecs ?? [':/'];
  if (pathspecs.length === 0) throw new Error('cleanUntracked: an empty pathspec list would clean the whole worktree');
  const flags = `-${opts.nestedRepos ? 'ff' : 'f'}d${opts.ignored ? 'x' : ''}q`;
  // `-e` (ignore rules) rather than exclude pathspecs: `git clean -d` with a pathspec exclusion still
  // removes a whole untracked folder that contains a kept file; an ignored file keeps its folder.
  const keep = (opts.keep ?? []).flatMap((p) => ['-e', exactIgnorePattern(p)]);
  await withOpenFolders(worktree, () => gitOut(worktree, ['clean', flags, ...keep, '--', ...pathspecs], { signal: opts.signal }));
}

/** `git reset --hard <commit>`: index and tracked files exactly as in `commit` (untracked files stay). */
export async function resetHard(worktree: string, commit: string, opts: GitCallOptions = {}): Promise<void> {
  await withOpenFolders(worktree, () => gitOut(worktree, ['reset', '--hard', '--quiet', commit], opts));
}

/**
 * Writes every tracked file of the worktree anew from the index, converted as the `.gitattributes`
 * on disk say now (line endings, encoding, filters). `git checkout-index --force` alone would skip
 * each file whose stat data matches its index entry, however it was converted: the index is first
 * read again from its own tree, without stat data, so that every entry counts as changed. `-u`
 * then records the new files' stat data. Precondition: no intent-to-add entry (`write-tree` would
 * refuse it), as after a commit or a `reset --hard`.
 */
export async function rewriteTrackedFiles(worktree: string, opts: GitCallOptions = {}): Promise<void> {
  const tree = (await gitOut(worktree, ['write-tree'], opts)).trim();
  await gitOut(worktree, ['read-tree', tree], opts);
  await withOpenFolders(worktree, () => gitOut(worktree, ['checkout-index', '--all', '--force', '-u'], opts));
}

/**
 * Paths whose index entry carries `assume-unchanged` or `skip-worktree` (`git ls-files -v`: a
 * lowercase tag or `S`). With either bit git stops looking at the file on disk: `git add -A` skips
 * an edit and `git reset --hard` leaves it in place.
 */
export async function flaggedIndexPaths(worktree: string, opts: GitCallOptions = {}): Promise<string[]> {
  const entries = splitNul(await gitOut(worktree, ['ls-files', '-v', '-z', '--', ':/'], opts));
  const flagged: string[] = [];
  for (const entry of entries) {
    const tag = entry.charAt(0);
    if (tag !== tag.toUpperCase() || tag === 'S') flagged.push(entry.slice(2));
  }
  return flagged;
}

/** Clears `assume-unchanged` and `skip-worktree` on these paths (literal, relative to the root). */
export async function clearIndexFlags(worktree: string, paths: readonly string[], opts: GitCallOptions = {}): Promise<void> {
  const CHUNK = 500;
  for (let i = 0; i < paths.length; i += CHUNK) {
    // One flag per call: given both, update-index applies only the first to each path.
    for (const flag of ['--no-assume-unchanged', '--no-skip-worktree']) {
      await gitOut(worktree, ['update-index', flag, '--', ...paths.slice(i, i + CHUNK)], opts);
    }
  }
}

/**
 * Every file and folder git does not track, ignored ones included (`.gitignore` plays no part):
 * a wholly untracked folder is one entry ending in `/`, nested repositories too. `expand` lists
 * these folders' own contents file by file instead (for folders that hold a file to keep).
 */
export async function untrackedEntries(worktree: string, opts: GitCallOptions & { readonly expand?: readonly string[] } = {}): Promise<string[]> {
  const expand = opts.expand ?? [];
  if (expand.length > 0) {
    // On the command line, a few hundred at a time: `ls-files` has no --pathspec-from-file.
    const CHUNK = 500;
    const files: string[] = [];
    for (let i = 0; i < expand.length; i += CHUNK) {
      files.push(...splitNul(await gitOut(worktree, ['ls-files', '--others', '-z', '--', ...expand.slice(i, i + CHUNK).map(literalPathspec)], opts)));
    }
    return files;
  }
  return splitNul(await gitOut(worktree, ['ls-files', '--others', '--directory', '-z', '--', ':/'], opts));
}

/**
 * Points the worktree's HEAD at `commit` itself (detached). While the checks run the worktree then
 * no longer follows its branch: a branch moved by someone else (a rival agent without the sandbox)
 * cannot move what is being scored. The caller reads the branch HEAD was on first (readHeadView,
 * or headBranchRef) and gives it to attachHead after the checks.
 */
export async function detachHead(worktree: string, commit: string, opts: GitCallOptions = {}): Promise<void> {
  await gitOut(worktree, ['update-ref', '--no-deref', 'HEAD', commit], { signal: opts.signal });
}

/** The branch ref HEAD is on (`refs/heads/...`), undefined when detached. */
export async function headBranchRef(worktree: string, opts: GitCallOptions = {}): Promise<string | undefined> {
  return (await runGit(worktree, ['symbolic-ref', '--quiet', 'HEAD'], opts)).stdout.trim() || undefined;
}

/**
 * Puts HEAD back on `branchRef` after detachHead, with the branch at `commit`: a branch moved
 * meanwhile goes back (compare and swap from where it was found). Returns where it had been
 * moved to, or undefined when it had not moved. Never moves a branch it did not find moved.
 */
export async function attachHead(worktree: string, branchRef: string, commit: string, opts: GitCallOptions = {}): Promise<string | undefined> {
  let movedTo: string | undefined;
  // A branch that keeps being moved (a loop of a rival beside) can win the gap between the read and the swap: try again.
  for (let attempt = 1; ; attempt += 1) {
    const tip = (await runGit(worktree, ['rev-parse', '--verify', '--quiet', `${branchRef}^{commit}`], opts)).stdout.trim() || undefined;
    if (tip === commit) break;
    movedTo = tip ?? 'nothing (deleted)';
    const zero = '0'.repeat(commit.length);
    const swap = await runGit(worktree, ['update-ref', '--no-deref', branchRef, commit, tip ?? zero], opts);
    if (swap.code === 0) break;
    if (attempt === 20) throw new Error(`cannot put ${branchRef} back at ${commit}: ${swap.stderr.trim()}`);
  }
  await gitOut(worktree, ['symbolic-ref', 'HEAD', branchRef], opts);
  return movedTo;
}

/**
 * Where git's view of a worktree stands, as a string to compare later: the identity of its index
 * file (mtime, ctime, size, inode: git writes the index through a new file, and any write moves its
 * ctime, which no program can set back), what HEAD holds, and the worktree's `.git` link. The same
 * string later: nothing has written the index, moved HEAD or replaced the link meanwhile. Costs no
 * git process once the worktree's git dir is known. Undefined when git cannot say where it is.
 */
export async function worktreeStamp(worktree: string, opts: GitCallOptions = {}): Promise<string | undefined> {
  const dirs = await gitDirsOf(worktree, opts.signal);
  if (!dirs) return undefined;
  return [
    fileIdentity(join(dirs.gitDir, 'index')),
    fileText(join(dirs.gitDir, 'HEAD')),
    fileIdentity(join(worktree, '.git')),
    fileText(join(worktree, '.git')),
  ].join('|');
}

function fileIdentity(path: string): string {
  try {
    const info = lstatSync(path, { bigint: true });
    return `${info.mode}:${info.mtimeNs}:${info.ctimeNs}:${info.size}:${info.ino}`;
  } catch {
    return 'missing';
  }
}

function fileText(path: string): string {
  try {
    return statSync(path).isFile() ? readFileSync(path, 'utf8') : 'not a file';
  } catch {
    return 'missing';
  }
}

/** A path where the worktree differs from its index (see worktreeChanges). */
export interface WorktreeChange {
  /** `changed` or `deleted`: a tracked path; `untracked`: not in the index (ignored too with `ignored`; a folder ends in `/`). */
  readonly kind: 'changed' | 'deleted' | 'untracked';
  readonly path: string;
}

const CHANGE_KIND: Readonly<Record<string, WorktreeChange['kind']>> = { C: 'changed', R: 'deleted', '?': 'untracked' };

/**
 * Where the files differ from the index, in one `git ls-files -t -m -d -o --directory
 * --exclude-standard`: tracked files changed in content, mode or type, or deleted (an edit whose
 * stat data was put back is still seen: its ctime moved), and untracked entries that are not
 * ignored, a wholly untracked folder as one entry, empty folders included: what `git clean -d`
 * would remove. With `ignored`, without `--exclude-standard`: the ignored entries too, what
 * `git clean -dx` would remove. Says nothing of the index against HEAD.
 */
export async function worktreeChanges(worktree: string, opts: GitCallOptions & { readonly ignored?: boolean } = {}): Promise<WorktreeChange[]> {
  const excludes = opts.ignored ? [] : ['--exclude-standard'];
  const out = await gitOut(worktree, ['ls-files', '-z', '-t', '-m', '-d', '-o', '--directory', ...excludes, '--full-name', '--', ':/'], opts);
  return splitNul(out).map((entry) => {
    const kind = CHANGE_KIND[entry.charAt(0)];
    if (kind === undefined || entry.charAt(1) !== ' ') throw new Error(`git ls-files -t in ${worktree}: unexpected entry ${JSON.stringify(entry)}`);
    return { kind, path: entry.slice(2) };
  });
}
