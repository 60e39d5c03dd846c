/**
 * Merging the winner into the user's branch, in the repository's main checkout.
 * Every refusal or failure leaves that checkout exactly as it was and the winner's branch in place.
 * One merge at a time per checkout (src/git/running/repo-lock.ts), whichever bestof process makes it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { err, ok, type Result } from '../../result.js';
import { gitMessage, gitOut, identityArgs, runGit, splitNul, type GitCallOptions, type GitRun } from '../running/exec.js';
import { isAncestor } from './refs.js';
import { isFullObjectName } from '../running/object-name.js';
import { withRepoLock } from '../running/repo-lock.js';
import { currentBranch, dirtyPaths, gitPath, resolveCommit } from '../running/repo.js';

/** How git joins the winner to its branch: the spec's `select.merge` modes that touch the user's branch (branch, pr and none merge nothing here). */
export type GitMergeStrategy = 'merge' | 'squash' | 'ff';

export interface MergeWinnerOptions {
  mode: GitMergeStrategy;
  /**
   * The commit to merge, by sha: the one that was scored (or bestof's revert commit on top of
   * it). Never resolved from a name, so a branch or ref moved after scoring changes nothing.
   */
  commit: string;
  /** The winner's branch: named in messages only. */
  branch: string;
  /** What a message tells the user to `git merge` by hand. @default `branch` */
  byHand?: string;
  /** The branch to merge into; it must be the one checked out in `repo`. */
  into: string;
  /** Message of the merge or squash commit (unused by `ff`). */
  message: string;
  /**
   * The tip of `into` this merge was checked on (src/engine/merge/merge-check.ts): refused when `into` is
   * somewhere else now, since what was checked would not be what lands. @default any tip
   */
  onto?: string;
  signal?: AbortSignal;
}

export type MergeFailureReason = 'dirty' | 'not_checked_out' | 'conflict' | 'not_fast_forward' | 'moved' | 'error';

export interface MergeFailure {
  readonly reason: MergeFailureReason;
  /** What happened, what was kept, what to do next. */
  readonly message: string;
}

/** The new HEAD of `into` on success. */
export type MergeWinnerResult = Result<{ readonly commit: string }, MergeFailure>;

const MAX_LISTED = 5;

function listPaths(paths: readonly string[]): string {
  const shown = paths.slice(0, MAX_LISTED).join(', ');
  return paths.length > MAX_LISTED ? `${shown} and ${paths.length - MAX_LISTED} more` : shown;
}

/** A merge, rebase, cherry-pick or revert the user left unfinished in this checkout, if any. */
export async function operationInProgress(repo: string, opts: GitCallOptions = {}): Promise<string | undefined> {
  for (const [ref, what] of [
    ['MERGE_HEAD', 'merge'],
    ['CHERRY_PICK_HEAD', 'cherry-pick'],
    ['REVERT_HEAD', 'revert'],
  ] as const) {
    const run = await runGit(repo, ['rev-parse', '--quiet', '--verify', ref], opts);
    if (run.code === 0) return what;
  }
  for (const dir of ['rebase-merge', 'rebase-apply']) {
    if (existsSync(await gitPath(repo, dir, opts))) return 'rebase';
  }
  return undefined;
}

async function unmergedPaths(repo: string): Promise<string[]> {
  const out = await gitOut(repo, ['diff', '--name-only', '-z', '--diff-filter=U']);
  return [...new Set(splitNul(out))];
}

/**
 * Merges the commit `commit` (the winner's, named `branch` in messages) into `into` (which must be
 * checked out in `repo`, with no uncommitted changes to tracked files) as a merge commit, a squash
 * commit or a fast-forward. The user's own git hooks run as for any merge they would make themselves.
 */
export async function mergeWinner(repo: string, opts: MergeWinnerOptions): Promise<MergeWinnerResult> {
  // One merge at a time into a checkout, across bestof processes: two runs finishing together
  // would otherwise see each other's MERGE_HEAD and half-made squash, and undo each other's work.
  const gitDir = (await gitOut(repo, ['rev-parse', '--absolute-git-dir'], { signal: opts.signal })).trim();
  return withRepoLock(gitDir, 'merge', () => mergeLocked(repo, gitDir, opts), { signal: opts.signal });
}

/** A refusal or failure of the merge: what happened, what was kept, what to do next. */
const fail = (reason: MergeFailureReason, message: string): Result<never, MergeFailure> => err({ reason, message });

/** What every refusal and failure says was kept. */
const branchKept = (branch: string): string => `the winner's branch ${branch} is left in place`;

/**
 * What must hold before a merge touches the checkout: `opts.commit` a commit named by its full sha,
 * `into` checked out, no merge, rebase, cherry-pick or revert in progress, no `index.lock`, no
 * uncommitted changes to tracked files, and something to merge. The commit and the checkout's HEAD,
 * or the refusal, said with what to do instead.
 */
async function mergePreflight(
  repo: string,
  gitDir: string,
  opts: MergeWinnerOptions,
): Promise<Result<{ branchSha: string; headBefore: string }, MergeFailure>> {
  const { branch, into, signal } = opts;
  const byHand = opts.byHand ?? branch;
  const call = { signal };
  const kept = branchKept(branch);

  // A full sha only: `resolveCommit` of a name would let whatever the name points at now be merged.
  const branchSha = isFullObjectName(opts.commit) ? await resolveCommit(repo, opts.commit, call) : undefined;
  if (branchSha === undefined) return fail('error', `cannot merge ${branch} into ${into}: ${opts.commit} is not a commit sha in ${repo}; ${kept}`);

  const current = await currentBranch(repo, call);
  if (current !== into) {
    const where = current === undefined ? 'a detached HEAD' : `branch ${current}`;
    return fail(
      'not_checked_out',
      `cannot merge ${branch} into ${into}: the checkout at ${repo} is on ${where}, not ${into}. ` +
        `Run \`git switch ${into}\` and then \`git merge ${byHand}\`, or set merge = "branch" to keep the winner as a branch; ${kept}.`,
    );
  }

  const pending = await operationInProgress(repo, call);
  if (pending !== undefined) {
    return fail('error', `cannot merge ${branch} into ${into}: a ${pending} is in progress in ${repo}; finish or abort it first; ${kept}.`);
  }

  // git's lock on the checkout's index: a git command working there now, or one that was killed or
  // crashed and left it. The merge would fail on it, and so would the undo of anything half-made.
  const indexLock = join(gitDir, 'index.lock');
  if (existsSync(indexLock)) {
    return fail(
      'error',
      `cannot merge ${branch} into ${into}: ${indexLock} exists: a git command is working in ${repo}, or one was stopped and left it. ` +
        `Once no git runs there, remove it (\`rm '${indexLock.replace(/'/g, `'\\''`)}'\`) and run \`git merge ${byHand}\`; ${kept}.`,
    );
  }

  const dirty = await dirtyPaths(repo, call);
  if (dirty.length > 0) {
    return fail(
      'dirty',
      `cannot merge ${branch} into ${into}: ${repo} has uncommitted changes in ${listPaths(dirty)}. ` +
        `Commit or stash them, then run \`git merge ${byHand}\`; ${kept}.`,
    );
  }

  const headBefore = await resolveCommit(repo, 'HEAD', call);
  if (headBefore === undefined) throw new Error(`no HEAD commit in ${repo}`);
  if (opts.onto !== undefined && headBefore !== opts.onto) {
    return fail(
      'moved',
      `cannot merge ${branch} into ${into}: ${into} moved to ${headBefore.slice(0, 10)} while the merge onto ${opts.onto.slice(0, 10)} was being checked, so the checked result is not what would land. ` +
        `Merge it by hand with \`git merge ${byHand}\` and run the checks; ${kept}.`,
    );
  }
  if (await isAncestor(repo, branchSha, headBefore, call)) {
    return fail('error', `nothing to merge: ${into} already contains every commit of ${branch}; ${kept}.`);
  }
  return ok({ branchSha, headBefore });
}

async function mergeLocked(repo: string, gitDir: string, opts: MergeWinnerOptions): Promise<MergeWinnerResult> {
  const { mode, branch, into, message, signal } = opts;
  const byHand = opts.byHand ?? branch;
  const call = { signal };
  const kept = branchKept(branch);

  const ready = await mergePreflight(repo, gitDir, opts);
  if (!ready.ok) return ready;
  const { branchSha, headBefore } = ready.value;
  const identity = await identityArgs(repo, call);

  // The checkout had no changes to tracked files (checked above) and git never overwrites untracked
  // ones, so `git reset --merge` returns it exactly to HEAD: after a conflicted merge (like
  // `git merge --abort`), after a squash (which leaves no MERGE_HEAD to abort), after a failed hook,
  // and after git was killed half-way by the abort signal. Never throws: an undo that fails (a git
  // of someone else's holding the index lock) is said, with what to run, in place of "as before".
  const undo = async (): Promise<string | undefined> => {
    // No signal: the cleanup must run even after an abort.
    const run = await runGit(repo, ['reset', '--quiet', '--merge']).catch((error: unknown) => ({
      code: -1,
      stdout: '',
      stderr: error instanceof Error ? error.message : String(error),
    }));
    if (run.code === 0) return undefined;
    return `undoing it failed too (${gitMessage(run.stderr || run.stdout)}): once no other git runs in ${repo}, run \`git merge --abort\` there (or \`git reset --merge\` after a squash)`;
  };
  /** Runs a git step; if it is aborted, undoes what it did before rethrowing (a failed undo is resume's to finish: undoInterruptedMerge). */
  const step = async (args: string[]): Promise<GitRun> => {
    try {
      // The user's own hooks run on a merge into the user's branch (the only bestof call that allows them).
      return await runGit(repo, [...identity, ...args], { ...call, userHooks: true });
    } catch (err) {
      await undo();
      throw err;
    }
  };
  const failed = async (what: string, run: GitRun): Promise<MergeWinnerResult> => {
    const conflicts = await unmergedPaths(repo).catch(() => []);
    const undoFailed = await undo();
    const after = undoFailed ?? `the merge was undone and ${repo} is as before`;
    if (conflicts.length > 0) {
      return fail(
        'conflict',
        `merging ${branch} into ${into} conflicts in ${listPaths(conflicts)}; ${after}. Resolve it by hand with \`git merge ${byHand}\`; ${kept}.`,
      );
    }
    return fail('error', `${what} failed: ${gitMessage(run.stderr || run.stdout)}; ${undoFailed ?? `${repo} is as before`}; ${kept}.`);
  };
  const headNow = async (): Promise<string> => (await gitOut(repo, ['rev-parse', 'HEAD'])).trim();

  if (mode === 'merge') {
    const run = await step(['merge', '--no-ff', '--no-edit', '-m', message, branchSha]);
    if (run.code !== 0) return failed(`git merge ${branch}`, run);
    return ok({ commit: await headNow() });
  }

  if (mode === 'squash') {
    const run = await step(['merge', '--squash', branchSha]);
    if (run.code !== 0) return failed(`git merge --squash ${branch}`, run);
    const staged = splitNul(await gitOut(repo, ['diff', '--cached', '--name-only', '-z']));
    if (staged.length === 0) {
      const undoFailed = await undo();
      return fail(
        'error',
        `the squash of ${branch} into ${into} is empty: ${into} already has all its changes, so nothing was committed${undoFailed ? `; ${undoFailed}` : ''}; ${kept}.`,
      );
    }
    const commit = await step(['commit', '--quiet', '--no-edit', '-m', message]);
    if (commit.code !== 0) return failed('the squash commit', commit);
    return ok({ commit: await headNow() });
  }

  if (!(await isAncestor(repo, headBefore, branchSha, call))) {
    return fail(
      'not_fast_forward',
      `cannot fast-forward ${into} to ${branch}: ${into} has commits that ${branch} does not have. ` +
        `Use merge = "merge" or "squash", or rebase ${branch} onto ${into}; ${kept}.`,
    );
  }
  const run = await step(['merge', '--ff-only', branchSha]);
  if (run.code !== 0) return failed(`git merge --ff-only ${branch}`, run);
  return ok({ commit: await headNow() });
}

/**
 * A merge commit of `commit` onto the HEAD of `worktree` (a worktree of bestof's own, never the
 * user's checkout), with no hook of the user's: the result a merge into the user's branch would
 * have, made where the checks can score it first (src/engine/merge/merge-check.ts). A merge or squash of
 * the same two commits gives the same tree. A conflict (or any failure) is aborted and said.
 */
export async function mergeInWorktree(
  worktree: string,
  opts: { readonly commit: string; readonly message: string; readonly signal?: AbortSignal },
): Promise<Result<string>> {
  const call = { signal: opts.signal };
  const identity = await identityArgs(worktree, call);
  const run = await runGit(worktree, [...identity, 'merge', '--no-ff', '--no-edit', '-m', opts.message, opts.commit], call);
  if (run.code === 0) return ok((await gitOut(worktree, ['rev-parse', 'HEAD'], call)).trim());
  const conflicts = await unmergedPaths(worktree).catch(() => []);
  await runGit(worktree, ['merge', '--abort']).catch(() => undefined);
  return err(conflicts.length > 0 ? `it conflicts in ${listPaths(conflicts)}` : gitMessage(run.stderr || run.stdout));
}

export interface EarlierMergeQuery {
  /** The branch merged into. */
  readonly into: string;
  /** Its tip when the merge began. */
  readonly since: string;
  /** What was merged (a merge or a fast-forward makes it an ancestor of the tip). */
  readonly commit: string;
  /** The subject of bestof's merge or squash commit (a squash is found by it). */
  readonly subject: string;
}

/**
 * The commit by which `into` received `commit` after `since`, when it did: the tip for a merge
 * or a fast-forward (the merged commit is an ancestor of it), or the squash commit whose subject is
 * bestof's. Undefined when `into` has not moved or moved for another reason.
 */
export async function findEarlierMerge(repo: string, query: EarlierMergeQuery, opts: GitCallOptions = {}): Promise<string | undefined> {
  const tip = await resolveCommit(repo, `refs/heads/${query.into}`, opts);
  if (tip === undefined || tip === query.since) return undefined;
  if (!(await isAncestor(repo, query.since, tip, opts))) return undefined;
  if (await isAncestor(repo, query.commit, tip, opts)) return tip;
  const log = await gitOut(repo, ['log', '--format=%H%x09%s', `${query.since}..${tip}`], opts);
  for (const line of log.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0 && line.slice(tab + 1) === query.subject) return line.slice(0, tab);
  }
  return undefined;
}

/**
 * Undoes what a merge of `commit` (the winner's scored commit) into the checked-out `into` left in
 * the checkout when bestof was killed half-way through it, after git had written the checkout and
 * before the branch moved: a merge in progress whose MERGE_HEAD is `commit` or builds on it (bestof's
 * revert commit), a squash staged from it (its SQUASH_MSG lists `commit`), or a fast-forward's
 * files (the index holds `commit`'s tree). The merge checked, before it began, that the checkout had
 * no uncommitted changes to tracked files, so these are bestof's own; `git reset --merge` takes the
 * checkout back to HEAD and keeps a change made on top since (or refuses, and says so). `none`:
 * nothing of such a merge is there. Under the checkout's merge lock, as mergeWinner: another run's
 * merge in progress is never taken for this one's half.
 */
export async function undoInterruptedMerge(repo: string, opts: { readonly commit: string; readonly into: string }): Promise<Result<'undone' | 'none'>> {
  const gitDir = (await gitOut(repo, ['rev-parse', '--absolute-git-dir'])).trim();
  return withRepoLock(gitDir, 'merge', async () => {
    if ((await currentBranch(repo)) !== opts.into) return ok('none');
    if (!(await holdsInterruptedMerge(repo, opts.commit))) return ok('none');
    const reset = await runGit(repo, ['reset', '--quiet', '--merge']);
    if (reset.code !== 0) {
      return err(
        `the merge of ${opts.commit.slice(0, 10)} into ${opts.into} was cut off half-way by the interruption and could not be undone (${gitMessage(reset.stderr || reset.stdout)}): ` +
          `your checkout holds it and your changes on top, nothing was merged; undo it with \`git reset --merge\` (or \`git merge --abort\`) once your changes are safe, then resume again`,
      );
    }
    return ok('undone');
  });
}

async function holdsInterruptedMerge(repo: string, commit: string): Promise<boolean> {
  const mergeHead = (await runGit(repo, ['rev-parse', '--quiet', '--verify', 'MERGE_HEAD^{commit}'])).stdout.trim();
  if (mergeHead !== '') return mergeHead === commit || (await isAncestor(repo, commit, mergeHead));
  const squashMessage = await gitPath(repo, 'SQUASH_MSG');
  if (existsSync(squashMessage) && readFileSync(squashMessage, 'utf8').includes(`commit ${commit}`)) return true;
  if ((await dirtyPaths(repo)).length === 0) return false;
  const [index, tree] = await Promise.all([runGit(repo, ['write-tree']), runGit(repo, ['rev-parse', '--verify', '--quiet', `${commit}^{tree}`])]);
  return index.code === 0 && tree.code === 0 && index.stdout.trim() === tree.stdout.trim();
}
