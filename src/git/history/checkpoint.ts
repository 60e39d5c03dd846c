/**
 * Git steps of the candidate loop that the first round did not need: rewording an
 * iteration's commit once its score is known, and putting a worktree back on an existing
 * branch when a run is resumed.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { err, ok, type Result } from '../../result.js';
import type { CommitHeader } from './commit.js';
import { rememberSameTree } from './diff.js';
import { gitOut, identityArgs, runGit } from '../running/exec.js';
import { isAncestor } from './refs.js';
import { resolveCommit } from '../running/repo.js';
import { addWorktreeOnBranch } from '../worktrees/worktree.js';
import { repairWorktreeLink } from '../worktrees/worktree-link.js';

export interface Reworded {
  /** The reworded commit: `commit`'s tree and parents, the new message. */
  readonly commit: string;
  /** The branch no longer pointed at `commit` (someone else moved it meanwhile): it was put on the reworded commit anyway. */
  readonly branchWasMoved?: string;
  /** `keepRef` points at the reworded commit too, moved in the same transaction as the branch. */
  readonly kept?: true;
}

/**
 * Rewrites the message of `commit` (its tree and parents unchanged) and moves `branch` from it to
 * the new commit. By sha, never "whatever HEAD is now": a rival that moved the branch while the
 * checks ran (possible without the sandbox) must not get its tree recorded under this candidate's
 * name, as `git commit --amend` would do.
 *
 * With `keepRef` (the candidate's kept ref), the branch and that ref move in one `git update-ref
 * --stdin` transaction, one git process instead of two: both or neither. When it fails (the
 * branch was moved, or something is planted in the kept ref's way: both only possible without the
 * sandbox), nothing has moved, the branch is put on the reworded commit as below, and `kept` is
 * absent: the caller moves the kept ref its own way (updateOwnRef clears what is in the way).
 */
export async function rewordCommit(
  worktree: string,
  opts: {
    readonly commit: string;
    readonly branch: string;
    readonly message: string;
    /**
     * `commit`'s tree and parents when the caller made it (commitAll's `header`): a sha names one
     * commit object for good, so they need not be read back. @default read with `git cat-file`
     */
    readonly header?: CommitHeader | undefined;
    /** A full ref (`refs/bestof/...`) to point at the reworded commit in the same transaction as the branch. */
    readonly keepRef?: string | undefined;
  },
): Promise<Reworded> {
  const [identity, header] = await Promise.all([identityArgs(worktree), opts.header ?? commitHeader(worktree, opts.commit)]);
  const parents = header.parents.flatMap((p) => ['-p', p]);
  // Only bestof's own commits are reworded, made with the same identity a moment before.
  const made = (await gitOut(worktree, [...identity, 'commit-tree', header.tree, ...parents, '-m', opts.message])).trim();
  // The same tree: what was asked of the commit's paths (the frozen diff) holds for the reworded one.
  rememberSameTree(made, opts.commit);
  const ref = `refs/heads/${opts.branch}`;
  if (opts.keepRef !== undefined) {
    const both = await runGit(worktree, ['update-ref', '--stdin'], { input: `update ${ref} ${made} ${opts.commit}\nupdate ${opts.keepRef} ${made}\n` });
    if (both.code === 0) return { commit: made, kept: true };
  }
  const swapped = await runGit(worktree, ['update-ref', ref, made, opts.commit]);
  if (swapped.code === 0) return { commit: made };
  const movedTo = (await runGit(worktree, ['rev-parse', '--verify', '--quiet', ref])).stdout.trim();
  await gitOut(worktree, ['update-ref', ref, made]);
  return { commit: made, branchWasMoved: movedTo || 'nothing (deleted)' };
}

/**
 * The tree and parents of `commit`, from its raw object (one `git cat-file`): exactly what the
 * commit records, grafts and replace refs playing no part.
 */
async function commitHeader(worktree: string, commit: string): Promise<CommitHeader> {
  const raw = await gitOut(worktree, ['cat-file', 'commit', commit]);
  const end = raw.indexOf('\n\n');
  const lines = (end < 0 ? raw : raw.slice(0, end)).split('\n');
  const tree = lines.find((l) => l.startsWith('tree '))?.slice('tree '.length);
  if (!tree) throw new Error(`${commit} in ${worktree}: its commit object names no tree`);
  return { tree, parents: lines.filter((l) => l.startsWith('parent ')).map((l) => l.slice('parent '.length)) };
}

/**
 * Makes sure the candidate's worktree exists on its branch: `reused` when the folder is still
 * there (a run killed with SIGKILL leaves it, maybe with uncommitted work; a destroyed `.git` link
 * is repaired, never the folder deleted), `recreated` from the branch when the folder is gone.
 * HEAD is put back on the branch when the agent left it elsewhere, unless that would leave
 * commits behind: then the worktree is left as it is and the error says so.
 */
export async function reattachWorktree(repo: string, path: string, branch: string): Promise<Result<'reused' | 'recreated'>> {
  const abs = resolve(path);
  if (!existsSync(abs)) {
    const made = await addWorktreeOnBranch(repo, { path: abs, branch });
    return made.ok ? ok('recreated') : made;
  }
  const link = await repairWorktreeLink(repo, abs, branch);
  if (!link.ok) return link;
  const own = `refs/heads/${branch}`;
  // The full ref name: the short one is ambiguous with refs/bestof/<run>/<candidate>.
  const head = await runGit(abs, ['symbolic-ref', '--quiet', 'HEAD']);
  if (head.code === 0 && head.stdout.trim() === own) return ok('reused');
  const at = await resolveCommit(abs, 'HEAD');
  const tip = await resolveCommit(abs, own);
  if (tip === undefined) return err(`cannot reattach worktree ${abs}: branch ${branch} does not exist`);
  if (at !== undefined && !(await isAncestor(abs, at, tip))) {
    const where = head.code === 0 ? head.stdout.trim() : `a detached HEAD at ${at.slice(0, 12)}`;
    return err(
      `${abs} is on ${where}, with commits that are not on ${branch}; the worktree is left as it is: check them out or branch them, then resume again`,
    );
  }
  await gitOut(abs, ['symbolic-ref', 'HEAD', own]);
  return ok('reused');
}
