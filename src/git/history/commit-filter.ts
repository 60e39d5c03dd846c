/**
 * What an agent's commit must leave out: files over `[git] max_file_size`, files that hold one of
 * the run's secret values (an `env-dump.txt`), the agent's edits inside a submodule
 * (../worktrees/submodule-work.ts; bestof does not commit inside submodules: the gitlink is left out, the
 * edits stay on disk, and the `skipped` entry says so), and what would escape the commit
 * (../guards/escapes.ts): a symbolic link that leads outside the worktree, and a nested git repository
 * (untracked, or staged by the agent as a gitlink that no `.gitmodules` declares). These stay on
 * disk too; being untracked, they are moved aside for the checks (src/checks/scoring-tree.ts), so
 * the checks never read through them. It must be decided before `git add`: once a
 * file is added, its blob is in `.git/objects` for good (no ref needed; `git gc` keeps loose
 * objects for two weeks), and from a commit it reaches the merge, the reviewer's prompt and any
 * push.
 *
 * The cost grows with what changed, not with the repo: one `git status` (the same walk `git add -A`
 * makes), one `lstat` per changed file (a `readlink` per changed link), and contents read only when
 * the run has secret values, only of changed files no larger than the limit, in chunks of 1 MB.
 *
 * An already tracked file that the agent grew past the limit, or made hold a secret, is left out
 * the same way: the commit keeps the version it had before (the index entry is not updated), and
 * the file on disk stays as the agent left it. A tracked file that was over the limit already at
 * HEAD is not held to it: the repository chose to keep it, and refusing the agent's edit of it (a
 * big lockfile, a data file) would only lose work.
 */
import { createReadStream } from 'node:fs';
import { lstat, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isNestedRepo, linkLeadsOut, linkOutDetail, NESTED_REPO_DETAIL } from '../guards/escapes.js';
import { gitOut, splitNul, type GitCallOptions } from '../running/exec.js';
import { literalPathspec } from '../worktrees/paths.js';
import { changedSubmodules } from '../worktrees/submodule-work.js';
import { declaredSubmodules } from '../worktrees/submodules.js';

/**
 * The part of the run's secret set (src/engine/sandbox/secrets.ts `SecretSet`) that the filter needs; the
 * engine's set fits it as is (src/git imports nothing of the engine).
 */
export interface SecretValues {
  /** How many secret values there are: 0 means no file is read. */
  readonly size: number;
  /** The longest spelling of a value: chunks of a big file overlap by this much. */
  readonly longestValue: number;
  /** The name of a secret value found in `text`, never the value. */
  findValue(text: string): string | undefined;
}

export interface SkippedFile {
  /** Relative to the worktree root. */
  readonly path: string;
  readonly reason: 'too_large' | 'secret' | 'submodule' | 'link_out' | 'nested_repo';
  /**
   * For the user and the candidate, never the value: `512 MB > git.max_file_size 10 MB`, `holds the
   * value of OPENAI_API_KEY`, why a submodule's edits are not committed, `is a symbolic link to
   * /tmp/x, outside the worktree: ...`, `is a nested git repository ...`.
   */
  readonly detail: string;
}

export interface CommitFilterOptions {
  /** Paths never committed anyway (literal, relative to the root; a folder covers what is under it): not looked at. */
  readonly excludePaths?: readonly string[];
  /** The run's secret values; a file holding one is left out. @default none */
  readonly secrets?: SecretValues | undefined;
  /** A file larger than this is left out, without being read. @default no limit */
  readonly maxFileSizeBytes?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Files looked at (lstat, read) at once. */
const CONCURRENCY = 8;
/** Files up to this size are read at once; larger ones in chunks of it. */
const CHUNK_CHARS = 1024 * 1024;

/**
 * The files that `git add -A` would stage and that must stay out of the commit, in path order:
 * also every submodule the agent changed (its gitlink stays as it was). One `git status` always
 * (links and nested repositories are looked for in every commit), plus a `.gitmodules` read when
 * there is one.
 */
export async function filesToLeaveOut(worktree: string, opts: CommitFilterOptions): Promise<SkippedFile[]> {
  const excluded = new Set((opts.excludePaths ?? []).map((path) => path.replace(/\/+$/, '')));
  const submodules = (await changedSubmodules(worktree, { signal: opts.signal })).filter((path) => !isUnder(path, excluded));
  const inSubmodules = submodules.map((path): SkippedFile => ({ path, reason: 'submodule', detail: submoduleDetail(path) }));
  const files = await filesToLeaveOutOfTheSuperproject(worktree, opts, excluded);
  return [...inSubmodules, ...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Why a submodule's changes stay out: its files belong to another repository, whose commits
 * bestof does not make (nor push), so a gitlink moved to a commit made inside the worktree would
 * point at a commit that exists nowhere once the worktree is gone.
 */
function submoduleDetail(path: string): string {
  return `edits inside submodule ${path} are not committed: bestof does not commit inside submodules (they stay on disk in the worktree; the commit keeps the submodule at the commit it had)`;
}

/** The files of the worktree itself (not of its submodules) that must stay out: too large, holding a secret, a link out, a nested repository. */
async function filesToLeaveOutOfTheSuperproject(worktree: string, opts: CommitFilterOptions, excluded: ReadonlySet<string>): Promise<SkippedFile[]> {
  const secrets = opts.secrets !== undefined && opts.secrets.size > 0 ? opts.secrets : undefined;
  const limit = opts.maxFileSizeBytes;
  const changed = (await changedPaths(worktree, { signal: opts.signal })).filter((entry) => !isUnder(entry.path, excluded));
  const repos = await nestedRepos(worktree, changed, opts.signal);
  const skipped: SkippedFile[] = repos.map((path) => ({ path, reason: 'nested_repo', detail: NESTED_REPO_DETAIL }));
  const files = changed.filter((entry) => !entry.gitlink && !entry.folder);
  for (let i = 0; i < files.length; i += CONCURRENCY) {
    opts.signal?.throwIfAborted();
    const batch = await Promise.all(files.slice(i, i + CONCURRENCY).map((entry) => judgeFile(worktree, entry.path, secrets, limit)));
    for (const verdict of batch) if (verdict) skipped.push(verdict);
  }
  const tracked = new Set(changed.filter((entry) => entry.tracked).map((entry) => entry.path));
  const grown = skipped.filter((file) => file.reason === 'too_large' && tracked.has(file.path)).map((file) => file.path);
  if (grown.length === 0 || limit === undefined) return skipped;
  const bigAlready = await pathsOverLimitAtHead(worktree, grown, limit, { signal: opts.signal });
  return skipped.filter((file) => !(file.reason === 'too_large' && bigAlready.has(file.path)));
}

/**
 * Of the changed entries, the nested repositories: an untracked folder with a `.git` of its own
 * (git shows such a folder as one entry, `lib/`), and a gitlink the agent staged itself (`git add
 * lib`) that `.gitmodules` does not declare. A declared submodule is changedSubmodules' to judge.
 */
async function nestedRepos(worktree: string, changed: readonly ChangedPath[], signal: AbortSignal | undefined): Promise<string[]> {
  const folders = changed.filter((entry) => entry.folder);
  const repos = (await Promise.all(folders.map(async (entry) => ((await isNestedRepo(worktree, entry.path)) ? [entry.path] : [])))).flat();
  const gitlinks = changed.filter((entry) => entry.gitlink);
  if (gitlinks.length === 0) return repos;
  const declared = new Set((await declaredSubmodules(worktree, { signal })).map((submodule) => submodule.path.replace(/\/+$/, '')));
  return [...repos, ...gitlinks.filter((entry) => !declared.has(entry.path)).map((entry) => entry.path)];
}

interface ChangedPath {
  /** Relative to the root, without a trailing `/`. */
  readonly path: string;
  /** In the index already (modified, or added by the agent's own `git add`), not untracked. */
  readonly tracked: boolean;
  /** The index holds a gitlink (mode 160000) there: a submodule, or a repository the agent staged itself. */
  readonly gitlink: boolean;
  /** An untracked folder shown as one entry: with `--untracked-files=all`, only a repository of its own. */
  readonly folder: boolean;
}

/**
 * Paths whose content `git add -A` would stage: modified, added (also by the agent's own `git add`)
 * and untracked not ignored, one by one. Deleted files have nothing to stage and are left to git.
 *
 * Porcelain v2, for the index's mode of each entry (a staged gitlink); `--ignore-submodules=dirty`
 * so that a gitlink is listed at all, while git still only reads a submodule's HEAD and never runs
 * `git status` inside it (../worktrees/submodule-work.ts says why that matters).
 */
async function changedPaths(worktree: string, opts: GitCallOptions): Promise<ChangedPath[]> {
  const entries = splitNul(
    await gitOut(worktree, ['status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=dirty'], opts),
  );
  const changed: ChangedPath[] = [];
  for (const entry of entries) {
    if (entry.startsWith('? ')) {
      const path = entry.slice(2);
      changed.push({ path: path.replace(/\/+$/, ''), tracked: false, gitlink: false, folder: path.endsWith('/') });
      continue;
    }
    // "1 <XY> <sub> <mH> <mI> <mW> <hH> <hI> <path>" and, unmerged, "u <XY> <sub> <m1> <m2> <m3> <mW> <h1> <h2> <h3> <path>".
    const fields = entry.split(' ');
    const kind = fields[0];
    if (kind !== '1' && kind !== 'u') continue;
    if (fields[1]?.[1] === 'D') continue;
    const path = fields.slice(kind === '1' ? 8 : 10).join(' ');
    changed.push({ path, tracked: true, gitlink: kind === '1' && fields[4] === '160000', folder: false });
  }
  return changed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Of these paths, those whose blob at HEAD is already larger than `limit` (a rare case: a few paths, chunked on argv). */
async function pathsOverLimitAtHead(worktree: string, paths: readonly string[], limit: number, opts: GitCallOptions): Promise<Set<string>> {
  const over = new Set<string>();
  for (let i = 0; i < paths.length; i += 100) {
    const listing = await gitOut(worktree, ['ls-tree', '-l', '-z', '--full-tree', 'HEAD', '--', ...paths.slice(i, i + 100).map(literalPathspec)], opts).catch(
      () => '',
    );
    for (const entry of splitNul(listing)) {
      // "<mode> <type> <object> <size>\t<path>"
      const tab = entry.indexOf('\t');
      const size = Number(entry.slice(0, tab).trim().split(/\s+/)[3]);
      if (tab > 0 && size > limit) over.add(entry.slice(tab + 1));
    }
  }
  return over;
}

function isUnder(path: string, excluded: ReadonlySet<string>): boolean {
  if (excluded.size === 0) return false;
  for (let cut = path.indexOf('/'); cut >= 0; cut = path.indexOf('/', cut + 1)) if (excluded.has(path.slice(0, cut))) return true;
  return excluded.has(path);
}

async function judgeFile(worktree: string, path: string, secrets: SecretValues | undefined, limit: number | undefined): Promise<SkippedFile | undefined> {
  const full = join(worktree, path);
  const stat = await lstat(full).catch(() => undefined);
  if (stat === undefined) return undefined;
  if (stat.isSymbolicLink()) {
    // A link's blob is its target's path, which an agent could make a secret of.
    const name = secrets?.findValue(await readlink(full).catch(() => ''));
    if (name !== undefined) return { path, reason: 'secret', detail: `is a symlink whose target holds the value of ${name}` };
    const leadsTo = await linkLeadsOut(worktree, path);
    return leadsTo === undefined ? undefined : { path, reason: 'link_out', detail: linkOutDetail(leadsTo) };
  }
  if (!stat.isFile()) return undefined;
  if (limit !== undefined && stat.size > limit) {
    return { path, reason: 'too_large', detail: `${formatBytes(stat.size)} > git.max_file_size ${formatBytes(limit)}` };
  }
  if (secrets === undefined) return undefined;
  const name = stat.size <= CHUNK_CHARS ? secrets.findValue(await readFile(full, 'utf8').catch(() => '')) : await findValueInBigFile(full, secrets);
  return name === undefined ? undefined : { path, reason: 'secret', detail: `holds the value of ${name}` };
}

/** Reads a file in chunks, each searched with the end of the one before, so a value cut between two is found. */
async function findValueInBigFile(path: string, secrets: SecretValues): Promise<string | undefined> {
  const overlap = Math.max(0, secrets.longestValue - 1);
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: CHUNK_CHARS });
  let carry = '';
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      const text = carry + chunk;
      const name = secrets.findValue(text);
      if (name !== undefined) return name;
      carry = overlap > 0 ? text.slice(-overlap) : '';
    }
  } catch {
    // Unreadable (gone, no permission): git add would fail on it or skip it; nothing to say here.
  } finally {
    stream.destroy();
  }
  return undefined;
}

/** "512 MB", "1.5 KB", "900 B" (1 KB = 1024 bytes, as the spec reads sizes). */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(bytes % size === 0 ? 0 : 1))} ${unit}`;
  }
  return `${bytes} B`;
}

/**
 * What in the commits `from..to` (an agent's own commits) the filter would have left out: a blob
 * larger than the limit, or a change that holds a secret value; or what it must look at on disk,
 * a symbolic link or a gitlink their last tree adds or changes. Undefined when nothing. Checked on
 * every commit of the range, not only its last tree, for the blobs: a secret committed and then
 * deleted is still in the history; a link or gitlink only counts where the range ends.
 */
export async function rangeHoldsFiltered(
  worktree: string,
  from: string,
  to: string,
  opts: Omit<CommitFilterOptions, 'excludePaths'>,
): Promise<string | undefined> {
  const secrets = opts.secrets !== undefined && opts.secrets.size > 0 ? opts.secrets : undefined;
  const limit = opts.maxFileSizeBytes;
  const call = { signal: opts.signal };
  const linked = await linksAdded(worktree, from, to, call);
  if (linked !== undefined) return linked;
  if (limit !== undefined) {
    // Blobs new in the range over the limit: the ones `--filter=blob:limit=<limit + 1>` leaves out, printed with `~`.
    const listing = await gitOut(worktree, ['rev-list', '--objects', `--filter=blob:limit=${limit + 1}`, '--filter-print-omitted', `${from}..${to}`], call);
    if (listing.split('\n').some((line) => line.startsWith('~'))) return `a file larger than git.max_file_size ${formatBytes(limit)}`;
  }
  if (secrets !== undefined) {
    const patches = await gitOut(worktree, ['log', '-p', '--no-color', '--no-ext-diff', '--text', '--format=', `${from}..${to}`], call);
    const name = secrets.findValue(patches);
    if (name !== undefined) return `a change that holds the value of ${name}`;
  }
  return undefined;
}

/**
 * A symbolic link or a gitlink that `to`'s tree adds or changes against `from`'s, in words. Where
 * it leads, or whether `.gitmodules` declares it, is judged on disk once the commits are folded
 * (filesToLeaveOut): a link between two files of the worktree is committed again as it was.
 */
async function linksAdded(worktree: string, from: string, to: string, call: GitCallOptions): Promise<string | undefined> {
  const raw = splitNul(await gitOut(worktree, ['diff-tree', '-r', '-z', '--no-renames', '--ignore-submodules=none', '--no-ext-diff', from, to, '--'], call));
  // ":<old mode> <new mode> <old sha> <new sha> <status>", then the path.
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const mode = (raw[i] ?? '').split(' ')[1];
    if (mode === '120000') return `a symbolic link (${raw[i + 1] ?? ''})`;
    if (mode === '160000') return `a gitlink (${raw[i + 1] ?? ''}, a repository inside the worktree)`;
  }
  return undefined;
}
