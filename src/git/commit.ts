/** Checkpoint commits of a candidate's work inside its worktree. */
import { filesToLeaveOut, type SecretValues, type SkippedFile } from './commit-filter.js';
import { GitCommandError, gitOut, identityArgs, runGit, splitNul, withPathspecFile, type GitCallOptions } from './exec.js';
import { clearIndexFlags, excludeLiteralPathspec, flaggedIndexPaths, literalPathspec } from './paths.js';
import { isAncestor } from './refs.js';
import { resolveCommit } from './repo.js';

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
  signal?: AbortSignal;
}

/** `skipped`: files the agent wrote that the commit leaves out (too large, or holding a secret); they stay on disk. */
export type CommitAllResult = ({ commit: string; changedFiles: number } | { commit: undefined }) & { skipped: SkippedFile[] };

/**
 * Stages every change in the worktree (`git add -A`) except `excludePaths` and the files that
 * must not be committed (./commit-filter.ts: too large, or holding a secret value), and commits
 * it. Returns the new HEAD, or `{ commit: undefined }` when there was nothing to commit, and the
 * files left out. `worktree` must be the worktree's root folder.
 */
export async function commitAll(worktree: string, opts: CommitAllOptions): Promise<CommitAllResult> {
  const call = { signal: opts.signal };
  // An `assume-unchanged` / `skip-worktree` bit would hide an edit from `git add -A` (and from the
  // filter's `git status`): the commit must hold what is on disk.
  await clearIndexFlags(worktree, await flaggedIndexPaths(worktree, call), call);
  // Decided before `git add`: an added file's blob stays in .git/objects even if it is unstaged later.
  const skipped = await filesToLeaveOut(worktree, { excludePaths: opts.excludePaths, secrets: opts.secrets, maxFileSizeBytes: opts.maxFileSizeBytes, signal: opts.signal });
  const excluded = [...(opts.excludePaths ?? []), ...skipped.map((file) => file.path)];
  // `:/` is the whole worktree and nothing outside it; excludes are literal (no globbing).
  const add = await withPathspecFile([':/', ...excluded.map(excludeLiteralPathspec)], (from) => runGit(worktree, ['add', '-A', ...from], call));
  // An excluded path that is also ignored (a setup folder such as node_modules) makes git say so
  // and exit 1, after staging everything else: that is no failure here.
  if (add.code !== 0 && !/^The following paths are ignored by one of your \.gitignore files:/.test(add.stderr)) {
    throw new GitCommandError(['add', '-A'], worktree, add);
  }
  if (excluded.length > 0) {
    // An agent may have run `git add .env` itself: unstage excluded paths so they never land in a commit.
    await withPathspecFile(excluded.map(literalPathspec), (from) => gitOut(worktree, ['reset', '--quiet', ...from], call));
  }
  const staged = splitNul(await gitOut(worktree, ['diff', '--cached', '--name-only', '-z', '--no-renames'], call));
  if (staged.length === 0) return { commit: undefined, skipped };
  const identity = await identityArgs(worktree, call);
  // --no-verify: this is the tool's automatic checkpoint of an agent's work, not a commit by the user.
  // The user's pre-commit/commit-msg hooks (linters, ticket-number checks) would otherwise decide
  // whether a candidate's iteration is recorded at all; the spec's checks are what judges the work.
  // --no-gpg-sign: dozens of unattended commits must not block on a signing prompt.
  await gitOut(worktree, [...identity, 'commit', '--quiet', '--no-verify', '--no-gpg-sign', '--no-edit', '-m', opts.message], call);
  const commit = (await gitOut(worktree, ['rev-parse', 'HEAD'], call)).trim();
  return { commit, changedFiles: staged.length, skipped };
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
  readonly signal?: AbortSignal;
}

export interface ReclaimedHead {
  /** What HEAD was when it was not the candidate's branch: `refs/heads/main`, or `detached at <sha>`. */
  readonly headWas?: string;
  /** The branch had lost the kept commit (`git reset --hard HEAD~1`) and was set back to it. */
  readonly rewound: boolean;
  /** A branch of someone else's the agent had moved, put back where it was. */
  readonly branchRestored?: string;
}

/** `refs/heads/*` and where they point. */
export async function branchTips(repo: string, opts: GitCallOptions = {}): Promise<Map<string, string>> {
  const out = await gitOut(repo, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/'], opts);
  return new Map(out.split('\n').filter(Boolean).map((line) => line.split(' ') as [string, string]));
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
  const sym = await runGit(worktree, ['symbolic-ref', '--quiet', 'HEAD'], call);
  const headRef = sym.code === 0 ? sym.stdout.trim() : undefined;
  const [headSha, ownTip] = await Promise.all([resolveCommit(worktree, 'HEAD', call), resolveCommit(worktree, own, call)]);
  const buildsOnKept = async (sha: string | undefined): Promise<boolean> => sha !== undefined && (sha === opts.kept || (await isAncestor(worktree, opts.kept, sha, call)));
  if (headRef === own && (await buildsOnKept(ownTip))) return { rewound: false };

  const tip = headRef === own || !(await buildsOnKept(headSha)) ? ((await buildsOnKept(ownTip)) ? ownTip : opts.kept) : headSha;
  const rewound = tip === opts.kept && ownTip !== undefined && !(await buildsOnKept(ownTip));
  await gitOut(worktree, ['update-ref', own, tip ?? opts.kept], call);
  if (headRef === own) return { rewound };
  await gitOut(worktree, ['symbolic-ref', 'HEAD', own], call);
  const headWas = headRef ?? `detached at ${headSha ?? 'nothing'}`;
  const before = headRef !== undefined ? opts.branchesBefore?.get(headRef) : undefined;
  if (headRef !== undefined && before !== undefined && before !== headSha && headSha !== undefined) {
    // Compare-and-swap: only if it still points where the agent left it.
    await gitOut(worktree, ['update-ref', headRef, before, headSha], call);
    return { headWas, rewound, branchRestored: headRef };
  }
  return { headWas, rewound };
}

/**
 * Moves the worktree's branch back to `commit` and keeps everything after it staged (`git reset
 * --soft`): the next commit holds the same files as one commit of bestof's, which the commit
 * filter has looked at. For an agent's own commits that hold what must never be committed.
 */
export async function foldCommitsAfter(worktree: string, commit: string, opts: GitCallOptions = {}): Promise<void> {
  await gitOut(worktree, ['reset', '--quiet', '--soft', commit], opts);
}
