/**
 * The git reads of `bestof bench mine` (src/bench/mine/): the walk of a repo's non-merge commits,
 * what each changes, its fix as a patch, and some of a commit's files as a tar. Reads only: no ref,
 * index, worktree or file of the repo is written.
 */
import { err, ok, type Result } from '../../result.js';
import { gitOut, runGit, splitNul } from '../running/exec.js';

export interface LoggedCommit {
  readonly sha: string;
  /** Its parents, first first (none for a root commit). */
  readonly parents: readonly string[];
  /** Author date, ISO. */
  readonly date: string;
  readonly subject: string;
  /** The whole message (subject and body). */
  readonly message: string;
}

export interface LogOptions {
  readonly maxCount: number;
  /** `<rev>..HEAD` when `since` names a commit, else `--since=<since>` (a date). */
  readonly since?: string;
  readonly pathspecs?: readonly string[];
  readonly signal?: AbortSignal;
}

/** Non-merge commits reachable from HEAD, newest first. */
export async function nonMergeCommits(root: string, options: LogOptions): Promise<LoggedCommit[]> {
  const since = options.since;
  const sinceRev = since !== undefined && (await isCommit(root, since));
  const range = sinceRev ? [`${since}..HEAD`] : ['HEAD'];
  const sinceDate = since !== undefined && !sinceRev ? [`--since=${since}`] : [];
  const paths = options.pathspecs !== undefined && options.pathspecs.length > 0 ? ['--', ...options.pathspecs] : [];
  const out = await gitOut(
    root,
    ['log', '--no-merges', '-z', `--max-count=${options.maxCount}`, '--format=%H%x1f%P%x1f%aI%x1f%s%x1f%B', ...sinceDate, ...range, ...paths],
    { signal: options.signal },
  );
  const commits: LoggedCommit[] = [];
  for (const record of splitNul(out)) {
    const [sha = '', parents = '', date = '', subject = '', body = ''] = record.split('\x1f');
    if (sha === '') continue;
    commits.push({ sha, parents: parents.trim().split(' ').filter(Boolean), date, subject, message: body.trim() });
  }
  return commits;
}

export async function isCommit(root: string, rev: string): Promise<boolean> {
  return (await runGit(root, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])).code === 0;
}

export async function headCommitOf(root: string): Promise<string> {
  return (await gitOut(root, ['rev-parse', 'HEAD'])).trim();
}

/** Files that differ between two commits, within `pathspecs` (all when empty); `filter` as git's `--diff-filter`. */
export async function changedFiles(
  root: string,
  from: string,
  to: string,
  pathspecs: readonly string[],
  opts: { filter?: string; signal?: AbortSignal } = {},
): Promise<string[]> {
  const out = await gitOut(
    root,
    ['diff', '--name-only', '-z', '--no-renames', ...(opts.filter ? [`--diff-filter=${opts.filter}`] : []), from, to, '--', ...pathspecs],
    {
      signal: opts.signal,
    },
  );
  return splitNul(out).filter((f) => f !== '');
}

const literal = (files: readonly string[]) => files.map((f) => `:(top,literal)${f}`);

/** `git diff --numstat` of these files between two commits. */
export function numstat(root: string, from: string, to: string, files: readonly string[], signal?: AbortSignal): Promise<string> {
  return gitOut(root, ['diff', '--numstat', '--no-renames', from, to, '--', ...literal(files)], { signal });
}

/** These files' change between two commits as a patch `git apply` takes (binary files included). */
export function patchOf(root: string, from: string, to: string, files: readonly string[], signal?: AbortSignal): Promise<string> {
  return gitOut(root, ['diff', '--binary', '--no-renames', '--full-index', from, to, '--', ...literal(files)], { signal });
}

/** Which of these files the commit has. */
export async function filesAt(repo: string, commit: string, files: readonly string[]): Promise<Result<string[]>> {
  const listed = await runGit(repo, ['ls-tree', '-r', '-z', '--name-only', '--full-tree', commit, '--', ...literal(files)]);
  if (listed.code !== 0) return err(`cannot list ${commit.slice(0, 10)}'s files: ${listed.stderr.trim()}`);
  return ok(splitNul(listed.stdout).filter((f) => f !== ''));
}

/** A tar of these files as the commit has them (bytes as git holds them). */
export async function archiveFiles(repo: string, commit: string, files: readonly string[], tarFile: string): Promise<Result<void>> {
  const archived = await runGit(repo, ['archive', '--format=tar', `--output=${tarFile}`, commit, '--', ...literal(files)]);
  return archived.code === 0 ? ok() : err(`cannot export ${commit.slice(0, 10)}'s files: ${archived.stderr.trim()}`);
}
