/** Checkpoint commits of a candidate's work inside its worktree. */
import { filesToLeaveOut, type SecretValues, type SkippedFile } from './commit-filter.js';
import { GitCommandError, gitOut, identityArgs, runGit, splitNul, withPathspecFile, type GitCallOptions, type GitRun } from '../running/exec.js';
import { openUpTree } from '../../owned-tree.js';
import { clearIndexFlags, excludeLiteralPathspec, flaggedIndexPaths, literalPathspec } from '../worktrees/paths.js';
import { isAncestor } from './refs.js';
import { resolveCommit } from '../running/repo.js';

export type { SecretValues, SkippedFile } from './commit-filter.js';

export interface CommitAllOptions {
  message: string;
  /**
   * Paths (relative to the worktree root, taken literally; a folder covers what is under it)
   * that must never be committed, e.g. files copied in by `[setup] copy` such as `.env`.
   */
  excludePaths?: string[];
  /** The run's secret values: a file that holds one is left out of the commit (`skipped`). @default none */
  secrets?: SecretValues | undefined;
  /** `[git] max_file_size`: a larger file is left out of the commit (`skipped`). @default no limit */
  maxFileSizeBytes?: number | undefined;
  /**
   * The branch to commit on (`bestof/r7/c1`, not `refs/heads/...`) and the commit bestof left it at
   * (reclaimHead, then the fold): the new commit's parent, whatever HEAD or the branch say by the
   * time git runs. When the branch was moved meanwhile (by someone else: only possible without the
   * sandbox), it is put on the new commit anyway. @default HEAD's branch and commit when commitAll starts
   */
  onto?: { readonly branch: string; readonly head: string } | undefined;
  signal?: AbortSignal;
}

/**
 * `skipped`: files the agent wrote that the commit leaves out (too large, or holding a secret). A new
 * file stays on disk (moved aside and back around the checks); an edit of a tracked file is undone
 * by the scoring tree's reset before the checks, which score the commit.
 * `branchWasMoved`: the branch no longer pointed where bestof expected when the commit was made
 * (where it pointed, or `nothing (deleted)`); the commit is bestof's own all the same.
 */
export type CommitAllResult = ({ commit: string; changedFiles: number; branchWasMoved?: string; header: CommitHeader } | { commit: undefined }) & {
  skipped: SkippedFile[];
};

/**
 * The tree and parents a commit records. Of a commit made here they are known without asking git
 * (a commit's sha names exactly these), which spares the reword its `git cat-file`.
 */
export interface CommitHeader {
  readonly tree: string;
  readonly parents: readonly string[];
}

/**
 * Stages every change in the worktree (`git add -A`) except `excludePaths` and the files that
 * must not be committed (./commit-filter.ts: too large, or holding a secret value), and commits
 * it. Returns the new commit, or `{ commit: undefined }` when there was nothing to commit, and the
 * files left out. `worktree` must be the worktree's root folder.
 *
 * The commit is made with plumbing (`write-tree`, `commit-tree -p <expected>`, then `update-ref`
 * from the expected commit to the new one, a compare-and-swap), not with `git commit` and a look at
 * HEAD afterwards: without the sandbox a rival's agent can move this branch at any moment, and
 * `git commit` would then build on the rival's commit, and HEAD read after it could even be the
 * rival's commit itself, recorded and scored under this candidate's name. The result is always the
 * commit made here, with the expected parent. (commit-tree runs no hook and, on git 2.39, signs
 * only with -S; `--no-gpg-sign` says so anyway.)
 */
export async function commitAll(worktree: string, opts: CommitAllOptions): Promise<CommitAllResult> {
  const call = { signal: opts.signal };
  // Where the commit goes, decided before anything is staged; asked of git only without `onto`.
  const [onto] = await Promise.all([
    opts.onto ? { ref: `refs/heads/${opts.onto.branch}`, head: opts.onto.head, owned: true } : headAsItIs(worktree, call),
    // An `assume-unchanged` / `skip-worktree` bit would hide an edit from `git add -A` (and from the
    // filter's `git status`): the commit must hold what is on disk.
    flaggedIndexPaths(worktree, call).then((flagged) => clearIndexFlags(worktree, flagged, call)),
  ]);
  // Decided before `git add`: an added file's blob stays in .git/objects even if it is unstaged later.
  const skipped = await filesToLeaveOut(worktree, {
    excludePaths: opts.excludePaths,
    secrets: opts.secrets,
    maxFileSizeBytes: opts.maxFileSizeBytes,
    signal: opts.signal,
  });
  const excluded = [...(opts.excludePaths ?? []), ...skipped.map((file) => file.path)];
  // `:/` is the whole worktree and nothing outside it; excludes are literal (no globbing).
  const addAll = (): Promise<GitRun> =>
    withPathspecFile([':/', ...excluded.map(excludeLiteralPathspec)], (from) => runGit(worktree, ['add', '-A', ...from], call));
  let add = await addAll();
  // A folder its owner cannot read (`chmod 000`): git skips it with a warning and exit 0, and what
  // it holds would be in no commit; a file its owner cannot read fails the add. The agent's files
  // are this user's: opened up (../../owned-tree.ts), added again.
  if (/Permission denied/.test(add.stderr) && (await openUpTree(worktree)).length > 0) add = await addAll();
  // An excluded path that is also ignored (a setup folder such as node_modules) makes git say so
  // and exit 1, after staging everything else: that is no failure here.
  if (add.code !== 0 && !/^The following paths are ignored by one of your \.gitignore files:/.test(add.stderr)) {
    throw new GitCommandError(['add', '-A'], worktree, add);
  }
  const parent = onto.head !== undefined ? [onto.head] : [];
  if (excluded.length > 0) {
    // An agent may have run `git add .env` itself: unstage excluded paths so they never land in a
    // commit. As in the parent, not as in whatever HEAD names now.
    await withPathspecFile(excluded.map(literalPathspec), (from) => gitOut(worktree, ['reset', '--quiet', ...parent, ...from], call));
  }
  const staged = splitNul(await gitOut(worktree, ['diff', '--cached', '--name-only', '-z', '--no-renames', ...parent, '--'], call));
  if (staged.length === 0) return { commit: undefined, skipped };
  const [identity, tree] = await Promise.all([identityArgs(worktree, call), gitOut(worktree, ['write-tree'], call)]);
  // The user's pre-commit/commit-msg hooks (linters, ticket-number checks) must not decide whether
  // a candidate's iteration is recorded at all (commit-tree runs none; the spec's checks judge the
  // work), and dozens of unattended commits must not block on a signing prompt.
  const header: CommitHeader = { tree: tree.trim(), parents: parent };
  const made = (
    await gitOut(worktree, [...identity, 'commit-tree', '--no-gpg-sign', header.tree, ...parent.flatMap((p) => ['-p', p]), '-m', opts.message], call)
  ).trim();
  const reflog = `commit${onto.head === undefined ? ' (initial)' : ''}: ${opts.message.split('\n')[0] ?? ''}`;
  // Compare-and-swap: only from the commit this one builds on (`''`: the ref must not exist yet).
  const swapped = await runGit(worktree, ['update-ref', ...(onto.ref === 'HEAD' ? ['--no-deref'] : []), '-m', reflog, onto.ref, made, onto.head ?? ''], call);
  if (swapped.code === 0) return { commit: made, changedFiles: staged.length, skipped, header };
  const movedTo = (await runGit(worktree, ['rev-parse', '--verify', '--quiet', onto.ref], call)).stdout.trim() || 'nothing (deleted)';
  // The candidate's branch is bestof's: back on the commit made here. Another (commitAll without
  // `onto`) is left where it is now; the caller keeps the commit somewhere of its own.
  if (onto.owned) await gitOut(worktree, ['update-ref', '-m', reflog, onto.ref, made], call);
  return { commit: made, changedFiles: staged.length, branchWasMoved: movedTo, skipped, header };
}

/** HEAD's branch (`refs/heads/...`, or `HEAD` itself when detached) and its commit (undefined: none yet), as they are now. */
async function headAsItIs(worktree: string, call: GitCallOptions): Promise<{ readonly ref: string; readonly head: string | undefined; readonly owned: false }> {
  const [sym, head] = await Promise.all([runGit(worktree, ['symbolic-ref', '--quiet', 'HEAD'], call), resolveCommit(worktree, 'HEAD', call)]);
  return { ref: sym.code === 0 && sym.stdout.trim() !== '' ? sym.stdout.trim() : 'HEAD', head, owned: false };
}

/**
 * Reads now the identity that bestof's commits in `repo` take, in any of its worktrees (identityArgs
 * in ../running/exec.ts): a run does it as it starts, before any agent runs, so that no agent can choose it.
 * Never fails: when git cannot answer, the first commit asks again.
 */
export async function readCommitIdentity(repo: string): Promise<void> {
  await identityArgs(repo).catch(() => undefined);
}

/** Untracked, not ignored files of the worktree, relative to its root. */
export async function untrackedFiles(worktree: string, opts: GitCallOptions = {}): Promise<string[]> {
  return splitNul(await gitOut(worktree, ['ls-files', '--others', '--exclude-standard', '-z', '--', ':/'], opts));
}

/**
 * What setup left in a fresh worktree: untracked files one by one, and ignored ones (`node_modules`,
 * a copied `.env`) as their top-most ignored folder. They stay through the checks and are never committed.
 */
export async function setupCreatedPaths(worktree: string, opts: GitCallOptions = {}): Promise<string[]> {
  const ignored = splitNul(await gitOut(worktree, ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory', '-z', '--', ':/'], opts));
  return [...(await untrackedFiles(worktree, opts)), ...ignored.map((p) => p.replace(/\/+$/, ''))];
}

export interface ReclaimHeadOptions {
  /** The candidate's branch (`bestof/r7/c1`, not `refs/heads/...`). */
  readonly branch: string;
  /** The candidate's last kept commit: the branch must contain it. */
  readonly kept: string;
  /** Every `refs/heads/*` before the agent call (`branchTips`): a branch the agent moved while it had it checked out is put back. */
  readonly branchesBefore?: ReadonlyMap<string, string>;
  /**
   * HEAD's ref and commit and the branch's tip as the caller has just read them in the worktree
   * (readHeadView, ./head-view.ts), with nothing but bestof acting since. @default read here
   */
  readonly seen?: { readonly headRef: string | undefined; readonly head: string; readonly ownTip: string } | undefined;
  readonly signal?: AbortSignal;
}

export interface ReclaimedHead {
  /** What HEAD was when it was not the candidate's branch: `refs/heads/main`, or `detached at <sha>`. */
  readonly headWas?: string;
  /** The branch had lost the kept commit (`git reset --hard HEAD~1`) and was set back to it. */
  readonly rewound: boolean;
  /** A branch of someone else's the agent had moved, put back where it was. */
  readonly branchRestored?: string;
  /** The commit HEAD is at now (on the candidate's branch). */
  readonly head: string;
}

/** `refs/heads/*` and where they point. */
export async function branchTips(repo: string, opts: GitCallOptions = {}): Promise<Map<string, string>> {
  const out = await gitOut(repo, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/'], opts);
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ') as [string, string]),
  );
}

/**
 * HEAD belongs to bestof. Before a commit, the worktree's HEAD is made the symbolic ref to the
 * candidate's branch again if the agent checked out another branch or detached it, without touching
 * the files or the index (`git symbolic-ref`), so that the commit lands on the candidate's branch and
 * never on `main`. The branch keeps the agent's own commits when they build on `kept`; otherwise it
 * is set back to `kept` (the files the agent wrote are then committed on top of it), so kept refs
 * only move forward.
 */
export async function reclaimHead(worktree: string, opts: ReclaimHeadOptions): Promise<ReclaimedHead> {
  const call = { signal: opts.signal };
  const own = `refs/heads/${opts.branch}`;
  const { headRef, headSha, ownTip } = opts.seen
    ? { headRef: opts.seen.headRef, headSha: opts.seen.head, ownTip: opts.seen.ownTip }
    : await readHead(worktree, own, call);
  const buildsOnKept = async (sha: string | undefined): Promise<boolean> =>
    sha !== undefined && (sha === opts.kept || (await isAncestor(worktree, opts.kept, sha, call)));
  if (headRef === own && ownTip !== undefined && (await buildsOnKept(ownTip))) return { rewound: false, head: ownTip };

  const tip = (headRef === own || !(await buildsOnKept(headSha)) ? ((await buildsOnKept(ownTip)) ? ownTip : opts.kept) : headSha) ?? opts.kept;
  const rewound = tip === opts.kept && ownTip !== undefined && !(await buildsOnKept(ownTip));
  await gitOut(worktree, ['update-ref', own, tip], call);
  if (headRef === own) return { rewound, head: tip };
  await gitOut(worktree, ['symbolic-ref', 'HEAD', own], call);
  const headWas = headRef ?? `detached at ${headSha ?? 'nothing'}`;
  const before = headRef !== undefined ? opts.branchesBefore?.get(headRef) : undefined;
  if (headRef !== undefined && before !== undefined && before !== headSha && headSha !== undefined) {
    // Compare-and-swap: only if it still points where the agent left it.
    await gitOut(worktree, ['update-ref', headRef, before, headSha], call);
    return { headWas, rewound, branchRestored: headRef, head: tip };
  }
  return { headWas, rewound, head: tip };
}

/** The ref HEAD is on (undefined: detached), HEAD's commit and `own`'s, each asked on its own. */
async function readHead(
  worktree: string,
  own: string,
  call: GitCallOptions,
): Promise<{ headRef: string | undefined; headSha: string | undefined; ownTip: string | undefined }> {
  const sym = await runGit(worktree, ['symbolic-ref', '--quiet', 'HEAD'], call);
  const headRef = sym.code === 0 ? sym.stdout.trim() : undefined;
  // HEAD on the candidate's branch (the usual case): HEAD's commit is the branch's, asked once.
  const [headSha, ownTip] =
    headRef === own
      ? await resolveCommit(worktree, own, call).then((sha) => [sha, sha] as const)
      : await Promise.all([resolveCommit(worktree, 'HEAD', call), resolveCommit(worktree, own, call)]);
  return { headRef, headSha, ownTip };
}

/**
 * Moves the worktree's branch back to `commit` and keeps everything after it staged (`git reset
 * --soft`): the next commit holds the same files as one commit of bestof's, which the commit
 * filter has looked at. For an agent's own commits that hold what must never be committed.
 */
export async function foldCommitsAfter(worktree: string, commit: string, opts: GitCallOptions = {}): Promise<void> {
  await gitOut(worktree, ['reset', '--quiet', '--soft', commit], opts);
}
