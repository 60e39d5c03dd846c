/**
 * The repository as a whole: where it is, what is checked out, whether it is dirty.
 * `repo` arguments everywhere in src/git are a path inside a working tree of the repository
 * (normally `openRepo(...).root`).
 */
import { existsSync, statSync } from 'node:fs';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { err, ok, type Result } from '../../result.js';
import { gitDirsOf, gitMessage, gitOut, rememberGitDirs, runGit, splitLines, splitNul, type GitCallOptions } from './exec.js';
import { gitProblem } from './git-version.js';

export { warmDriverLookup } from './exec.js';

export interface RepoInfo {
  /** Top level of the working tree (absolute). */
  readonly root: string;
  /** The git common dir (absolute): shared by all worktrees, holds refs, objects and info/exclude. */
  readonly commonDir: string;
  /** HEAD's commit (full name) when the repository was opened. */
  readonly head: string;
}

/**
 * The repository `path` is in; an error the user can act on when it is none, or has no commit yet.
 * One git process (it runs at every start of bestof): the top level and the git dirs print even
 * when HEAD has no commit, and only then is the fourth line (HEAD's commit) missing. The git dirs
 * are remembered for the top level (gitDirsOf asks no second time).
 */
export async function openRepo(path: string, opts: GitCallOptions = {}): Promise<Result<RepoInfo>> {
  const abs = resolve(path);
  const notRepo = err(`not a git repository: ${abs} (run bestof inside a git repo or set \`repo\` in the spec)`);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) return notRepo;
  // Absolute paths: the common dir as git resolves it, never joined by hand to a path through a symlink.
  let run: Awaited<ReturnType<typeof runGit>>;
  try {
    run = await runGit(
      abs,
      ['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir', '--git-dir', '--verify', '--quiet', 'HEAD^{commit}'],
      opts,
    );
  } catch (error) {
    // git could not start: not installed, most likely (./git-version.ts says which).
    if (opts.signal?.aborted) throw error;
    return err((await gitProblem()) ?? (error as Error).message);
  }
  const [root, commonDir, gitDir, head] = splitLines(run.stdout);
  if (!root || !commonDir || !gitDir) {
    // An older git refuses `--path-format` with a usage error (exit 129), which is no answer about the folder.
    if (run.code === 129) return err((await gitProblem()) ?? gitMessage(run.stderr));
    // A repository of another user's (a mounted volume, a CI checkout): git 2.35.2 and later refuse it.
    if (/dubious ownership/.test(run.stderr)) {
      return err(
        `git refuses to work in ${abs}: the repository belongs to another user (git's "dubious ownership" check); if you trust it, run \`git config --global --add safe.directory '${abs.replace(/'/g, `'\\''`)}'\`, or run bestof as its owner`,
      );
    }
    // A bare repository, or a folder inside a git dir: a repository, but no working tree to branch from.
    if (/must be run in a work tree/.test(run.stderr)) {
      return err(
        `${abs} is a bare repository or a folder inside a git dir, not a working tree: run bestof in a checkout of the repository, or set \`repo\` to one`,
      );
    }
    // Anything else git says (a broken .git, a permission denied) rather than "not a git repository".
    const said = gitMessage(run.stderr);
    if (said !== '' && !/not a git repository/i.test(said)) return err(`git cannot open the repository at ${abs}: ${said}`);
    return notRepo;
  }
  // The same working tree as `abs`: the same git dirs.
  rememberGitDirs(root, { commonDir, gitDir });
  if (run.code !== 0 || !head) {
    return err(`the git repository at ${root} has no commits yet: commit something first (bestof branches every candidate from a commit)`);
  }
  return ok({ root, commonDir, head });
}

/** Full sha of `rev^{commit}`, or undefined when `rev` names no commit. */
export async function resolveCommit(repo: string, rev: string, opts: GitCallOptions = {}): Promise<string | undefined> {
  const run = await runGit(repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], opts);
  const sha = run.stdout.trim();
  return run.code === 0 && sha !== '' ? sha : undefined;
}

/** Name of the checked-out branch (`main`, not `refs/heads/main`); undefined when HEAD is detached. */
export async function currentBranch(repo: string, opts: GitCallOptions = {}): Promise<string | undefined> {
  const run = await runGit(repo, ['symbolic-ref', '--quiet', 'HEAD'], opts);
  const ref = run.stdout.trim();
  if (run.code !== 0 || !ref.startsWith('refs/heads/')) return undefined;
  return ref.slice('refs/heads/'.length);
}

/**
 * True when the working tree has changes `git add -A` would pick up: modified, staged or
 * untracked (not ignored) files. A folder that is not a working tree (any more) has none.
 * Submodules are not looked into (src/git/worktrees/submodule-work.ts says why and does it safely).
 */
export async function hasUncommittedChanges(worktree: string, opts: GitCallOptions = {}): Promise<boolean> {
  if (!existsSync(worktree)) return false;
  const status = await runGit(worktree, ['status', '--porcelain', '--ignore-submodules=all'], opts);
  return status.code === 0 && status.stdout.trim() !== '';
}

/** Tracked files that are modified or staged (untracked files are ignored), relative to the root. */
export async function dirtyPaths(repo: string, opts: GitCallOptions = {}): Promise<string[]> {
  const out = await gitOut(repo, ['status', '--porcelain=v1', '-z', '--untracked-files=no'], opts);
  const parts = splitNul(out);
  const paths: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i] ?? '';
    const xy = entry.slice(0, 2);
    paths.push(entry.slice(3));
    // Renames and copies carry the original path as a second NUL-separated field.
    if (xy.includes('R') || xy.includes('C')) i++;
  }
  return paths;
}

/** Absolute path of a file inside the git dir of this working tree (`MERGE_HEAD`, `info/exclude`, ...). */
export async function gitPath(repo: string, name: string, opts: GitCallOptions = {}): Promise<string> {
  const out = (await gitOut(repo, ['rev-parse', '--git-path', name], opts)).trim();
  // --git-path may answer relative to the cwd, which is `repo`.
  return resolve(repo, out);
}

/**
 * Adds `pattern` as a line of `<commonDir>/info/exclude` unless it is already there, so bestof's
 * own folders (e.g. `/.bestof/`) never show up as untracked files or get committed.
 */
export async function ensureExcluded(repo: string, pattern: string, opts: GitCallOptions = {}): Promise<void> {
  const dirs = await gitDirsOf(repo, opts.signal);
  if (!dirs) throw new Error(`ensureExcluded: git cannot tell the git dirs of ${repo} (not a repository?)`);
  const file = join(dirs.commonDir, 'info', 'exclude');
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text.split(/\r?\n/).some((line) => line.trim() === pattern.trim())) return;
  await mkdir(dirname(file), { recursive: true });
  const sep = text === '' || text.endsWith('\n') ? '' : '\n';
  await appendFile(file, `${sep}${pattern}\n`);
}

/**
 * Does the checkout's index hold exactly `commit`'s tree? After a commit in the checkout it holds the
 * new tip's; a branch moved from outside the checkout (`git update-ref`) leaves it at the old tip's.
 */
export async function indexMatchesCommit(repo: string, commit: string, opts: GitCallOptions = {}): Promise<boolean> {
  const run = await runGit(repo, ['diff-index', '--cached', '--quiet', commit, '--'], opts);
  return run.code === 0;
}
