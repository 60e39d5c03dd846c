/**
 * Trees without a worktree: which files of a commit match some pathspecs, and a commit of
 * bestof's own that puts chosen paths back as `base` has them on top of a candidate's commit.
 *
 * Neither touches a worktree, the user's index or any ref: the revert commit is built in a
 * temporary index (`GIT_INDEX_FILE`) with plumbing only (read-tree, update-index, write-tree,
 * commit-tree), so no hook, filter or checkout of anyone's files runs on the way.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { err, ok, type Result } from '../../result.js';
import { gitMessage, gitOut, identityArgs, runGit, splitNul, type GitCallOptions, type GitRun } from '../running/exec.js';
import { literalPathspec } from '../worktrees/paths.js';
import { spawnGit } from '../running/spawn-git.js';

/** Git's empty tree in each hash format, by the length of an object name in it. */
const EMPTY_TREES: Readonly<Record<number, string>> = {
  40: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  64: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321',
};

/**
 * Git's empty tree in this repository's hash format: known without a git process when `commit` is a
 * full object name (sha-1 or sha-256: its length says which), asked of git otherwise.
 */
async function emptyTree(repo: string, commit: string, opts: GitCallOptions): Promise<string> {
  const known = /^[0-9a-f]+$/.test(commit) ? EMPTY_TREES[commit.length] : undefined;
  return known ?? (await gitOut(repo, ['hash-object', '-t', 'tree', '/dev/null'], opts)).trim();
}

/**
 * The files of `commit` (paths relative to the root, sorted) that match any of `pathspecs`
 * (git pathspecs, glob magic included: `:(top,glob)test/**`). An empty list matches nothing.
 * `git ls-tree` refuses glob magic, so this asks `diff-tree` against the empty tree.
 */
export async function pathsMatching(repo: string, commit: string, pathspecs: readonly string[], opts: GitCallOptions = {}): Promise<string[]> {
  if (pathspecs.length === 0) return [];
  const empty = await emptyTree(repo, commit, opts);
  const out = await gitOut(repo, ['diff-tree', '-r', '--name-only', '-z', '--no-renames', empty, commit, '--', ...pathspecs], opts);
  return splitNul(out).sort();
}

/** The top-level entries of `commit` (folders with a trailing `/`), for a message that says what is there. */
export async function topLevelPaths(repo: string, commit: string, opts: GitCallOptions = {}): Promise<string[]> {
  const out = await gitOut(repo, ['ls-tree', '-z', commit], opts);
  return splitNul(out).map((line) => {
    const tab = line.indexOf('\t');
    const type = line.split(' ')[1];
    const name = line.slice(tab + 1);
    return type === 'tree' ? `${name}/` : name;
  });
}

interface TreeEntry {
  readonly mode: string;
  readonly sha: string;
  readonly path: string;
}

/** Every blob, symlink and submodule entry of `rev` at or under these literal paths. */
async function entriesUnder(repo: string, rev: string, paths: readonly string[], opts: GitCallOptions): Promise<TreeEntry[]> {
  if (paths.length === 0) return [];
  const out = await gitOut(repo, ['ls-tree', '-r', '-z', '--full-tree', rev, '--', ...paths.map(literalPathspec)], opts);
  return splitNul(out).map((line) => {
    const tab = line.indexOf('\t');
    const [mode = '', , sha = ''] = line.slice(0, tab).split(' ');
    return { mode, sha, path: line.slice(tab + 1) };
  });
}

/**
 * `git <args>` with a private index file. exec.ts's runner takes no environment, and this is the
 * only place that needs one. Only plumbing runs here (read-tree, update-index, write-tree): no hook,
 * filter or fsmonitor is involved; replace objects are ignored, like in every call of bestof.
 */
async function runWithIndex(repo: string, indexFile: string, args: readonly string[], opts: GitCallOptions): Promise<GitRun> {
  // No cache file of `objects/` (a commit-graph, a multi-pack index) stands in for the objects themselves (../running/exec.ts).
  const run = await spawnGit(repo, ['-c', 'core.commitGraph=false', '-c', 'core.multiPackIndex=false', ...args], plumbingEnv(indexFile), opts.signal);
  if (run.code < 0) throw new Error(`git ${args.join(' ')}: no result in ${repo}: ${run.stderr}`);
  return run;
}

/**
 * A small environment of its own: only plumbing runs with it, and none of the variables the
 * user's environment may hold (EDITOR, GIT_SSH, GIT_DIR ...) has anything to do there.
 */
function plumbingEnv(indexFile: string): Record<string, string> {
  const env: Record<string, string> = { GIT_INDEX_FILE: indexFile, GIT_NO_REPLACE_OBJECTS: '1' };
  for (const key of ['PATH', 'HOME', 'XDG_CONFIG_HOME', 'LANG', 'LC_ALL']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** At most this many paths per command line (far below any system's limit). */
const CHUNK = 200;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

export interface RevertPathsOptions {
  /** The revision whose version of `paths` is restored (the run's base commit). */
  readonly base: string;
  /** The commit to build on (the candidate's scored commit); it becomes the only parent. */
  readonly commit: string;
  /**
   * Paths relative to the root, literal; a folder covers what is under it. A path that `base`
   * has is restored exactly (content, mode, symlink); one it does not have is removed.
   */
  readonly paths: readonly string[];
  readonly message: string;
  readonly signal?: AbortSignal;
}

/**
 * A new commit on top of `commit` whose tree is `commit`'s with `paths` as in `base`; returns
 * its sha (no ref points at it yet). When that changes nothing, returns `commit` itself.
 */
export async function revertPathsCommit(repo: string, opts: RevertPathsOptions): Promise<Result<string>> {
  const call = { signal: opts.signal };
  const [base, commit] = await Promise.all([verifyCommit(repo, opts.base, call), verifyCommit(repo, opts.commit, call)]);
  if (!base) return err(`cannot revert paths: ${opts.base} is not a commit in ${repo}`);
  if (!commit) return err(`cannot revert paths: ${opts.commit} is not a commit in ${repo}`);
  if (opts.paths.length === 0) return ok(commit);

  const dir = await mkdtemp(join(tmpdir(), 'bestof-index-'));
  const index = join(dir, 'index');
  const step = async (args: readonly string[]): Promise<Result<string>> => {
    const run = await runWithIndex(repo, index, args, call);
    return run.code === 0 ? ok(run.stdout) : err(`git ${args[0] ?? ''} failed while reverting paths: ${gitMessage(run.stderr || run.stdout)}`);
  };
  try {
    const read = await step(['read-tree', commit]);
    if (!read.ok) return read;
    const [theirs, ours] = await Promise.all([entriesUnder(repo, commit, opts.paths, call), entriesUnder(repo, base, opts.paths, call)]);
    // Folders are not index entries: `paths` is cleared entry by entry, then base's entries go back.
    for (const group of chunks(theirs.map((e) => e.path))) {
      const removed = await step(['update-index', '--force-remove', '--', ...group]);
      if (!removed.ok) return removed;
    }
    for (const group of chunks(ours)) {
      const added = await step(['update-index', '--add', ...group.flatMap((e) => ['--cacheinfo', `${e.mode},${e.sha},${e.path}`])]);
      if (!added.ok) return added;
    }
    const tree = await step(['write-tree']);
    if (!tree.ok) return tree;
    const treeSha = tree.value.trim();
    const commitTree = (await gitOut(repo, ['rev-parse', `${commit}^{tree}`], call)).trim();
    if (treeSha === commitTree) return ok(commit);
    const identity = await identityArgs(repo, call);
    const made = await runGit(repo, [...identity, 'commit-tree', '--no-gpg-sign', treeSha, '-p', commit, '-m', opts.message], call);
    if (made.code !== 0) return err(`cannot commit the reverted paths: ${gitMessage(made.stderr || made.stdout)}`);
    return ok(made.stdout.trim());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function verifyCommit(repo: string, rev: string, opts: GitCallOptions): Promise<string | undefined> {
  const run = await runGit(repo, ['rev-parse', '--quiet', '--verify', `${rev}^{commit}`], opts);
  return run.code === 0 ? run.stdout.trim() : undefined;
}

/** The tree of `commit`, or undefined when it is not a commit here. */
export async function treeOf(repo: string, commit: string, opts: GitCallOptions = {}): Promise<string | undefined> {
  const run = await runGit(repo, ['rev-parse', '--quiet', '--verify', `${commit}^{tree}`], opts);
  return run.code === 0 ? run.stdout.trim() : undefined;
}
