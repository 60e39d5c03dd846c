/**
 * Copy-on-write candidate worktrees: one plain checkout of the base commit per run (the shared
 * lower layer, read-only by convention), and per candidate an overlayfs upper layer on disk,
 * mounted at the candidate's worktree path inside the namespace of an overlay holder
 * (src/process/overlay-holder.ts). A candidate then costs what it changes, not what the
 * repository holds.
 *
 * Each candidate is still a real linked worktree of the repository: `git worktree add
 * --no-checkout` makes its branch's admin entry (HEAD, index, `gitdir`), its `.git` file is
 * written into the upper layer (the lower one holds the base checkout's own `.git` file), and its
 * index is the base checkout's index copied: overlayfs shows a lower file with its own inode,
 * size, mtime and ctime (only the device differs, which git does not compare), so `git status`
 * compares stat data and rehashes nothing that was not touched.
 *
 * The mount point outside the namespace keeps the `.git` file `git worktree add` wrote there, so
 * `git worktree prune` (any bestof, the user's) never takes the worktree for a deleted one. Seen
 * from outside, that folder holds nothing else: everything that reads or runs in the worktree
 * must do it inside the holder's namespace (see the holder's module doc).
 *
 * Layout per candidate: `<layer>/upper` (its changes, kept on disk: a new holder mounts them again
 * after a kill -9) and `<layer>/work` (overlayfs's scratch folder).
 *
 * The mounts themselves are the caller's (an OverlayHolder of src/process, which this layer does
 * not import): this module only needs something that mounts and unmounts.
 */
import { existsSync, readdirSync } from 'node:fs';
import { copyFile, cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { err, ok, type Result } from '../../result.js';
import { gitMessage, runGit, type GitCallOptions } from '../running/exec.js';
import { resolveCommit } from '../running/repo.js';
import { adminDirNamedBy, adminDirsOf, discardWorktree, rememberNewWorktreeDirs, withWorktreesLock } from './worktree-admin.js';
import { removeTree } from '../../owned-tree.js';

/** Why the base checkout is locked (`git worktree lock`): it is every candidate's lower layer. */
const BASE_LOCK_REASON = 'bestof: the shared base of copy-on-write worktrees (read-only; removed at the end of the run)';

/** Written beside the base checkout once it is complete: a checkout killed half-way has HEAD set but files missing. */
const readyMark = (path: string): string => `${path}.ready`;

/**
 * The run's shared base: a detached plain checkout of `commit` at `dir`, locked so that no
 * `git worktree prune` or removal drops it while candidates stand on it. A complete base already
 * there at that commit (a resumed run) is kept as it is; one whose checkout was killed half-way
 * (no ready mark: no candidate's layer was made on it yet) is made again.
 */
export async function prepareCowBase(repo: string, dir: string, commit: string, opts: GitCallOptions = {}): Promise<Result<void>> {
  const path = resolve(dir);
  const sha = await resolveCommit(repo, commit, opts);
  if (sha === undefined) return err(`cannot make the shared base checkout: ${commit} is not a commit in ${repo}`);
  if (existsSync(join(path, '.git')) && existsSync(readyMark(path))) {
    const head = await runGit(path, ['rev-parse', '--verify', '--quiet', 'HEAD'], opts);
    if (head.code === 0 && head.stdout.trim() === sha) return ok();
    return err(
      `cannot use ${path} as the shared base of ${commit.slice(0, 12)}: it holds another checkout; remove it with \`git worktree remove --force --force ${path}\``,
    );
  }
  if (existsSync(path) && !existsSync(readyMark(path))) await discardWorktree(repo, path, opts); // half made
  await rm(readyMark(path), { force: true });
  if (existsSync(path) && readdirSync(path).length > 0) return err(`cannot make the shared base checkout: ${path} exists and is not empty`);
  await mkdir(dirname(path), { recursive: true });
  const added = await withWorktreesLock(
    repo,
    () => runGit(repo, ['worktree', 'add', '--quiet', '--detach', '--lock', '--reason', BASE_LOCK_REASON, path, sha], opts),
    opts,
  );
  if (added.code !== 0) {
    await discardWorktree(repo, path).catch(() => undefined);
    return err(`cannot make the shared base checkout at ${path}: ${gitMessage(added.stderr || added.stdout)}`);
  }
  await writeFile(readyMark(path), `${sha}\n`);
  return ok();
}

/**
 * Takes the shared base checkout out of the repository without deleting its files (after every
 * candidate's overlay is gone): its admin entry removed and its folder renamed to `trash`, on the
 * same file system, so that the caller can delete it later or elsewhere. Resolves false, having
 * changed nothing but the ready mark, when the folder cannot be renamed there (another file system):
 * removeCowBase then.
 */
export async function detachCowBase(repo: string, dir: string, trash: string, opts: GitCallOptions = {}): Promise<Result<boolean>> {
  const path = resolve(dir);
  if (!existsSync(path)) return ok(true);
  // The mark first: a base without it is never used again, whatever happens next.
  await rm(readyMark(path), { force: true });
  return withWorktreesLock(
    repo,
    async (common) => {
      const admins = adminDirsOf(common, path);
      try {
        await mkdir(dirname(trash), { recursive: true });
        await rename(path, trash);
      } catch {
        return ok(false);
      }
      for (const admin of admins) await removeTree(admin);
      return ok(true);
    },
    opts,
  );
}

/** Removes the shared base checkout (after every candidate's overlay is gone). */
export async function removeCowBase(repo: string, dir: string, opts: GitCallOptions = {}): Promise<Result<void>> {
  const path = resolve(dir);
  if (!existsSync(path)) return ok();
  // The mark first: a base without it is never used again, whatever this removal leaves.
  await rm(readyMark(path), { force: true });
  const removed = await withWorktreesLock(repo, () => runGit(repo, ['worktree', 'remove', '--force', '--force', path], opts), opts);
  if (removed.code !== 0) return err(`cannot remove the shared base checkout ${path}: ${gitMessage(removed.stderr || removed.stdout)}`);
  return ok();
}

/** What mounts the layers: src/process/overlay-holder.ts's OverlayHolder. */
export interface OverlayMounts {
  mount(mount: { lower: string; upper: string; work: string; target: string }): Promise<Result<void>>;
  unmount(target: string): Promise<Result<void>>;
}

export interface CowWorktreeOptions {
  /** The candidate's worktree path (the mount point). */
  readonly path: string;
  readonly branch: string;
  /** The shared base checkout (lower layer), made by prepareCowBase. */
  readonly lower: string;
  /** The candidate's layer folder (`upper/`, `work/`), on the same file system as the worktrees. */
  readonly layer: string;
  readonly holder: OverlayMounts;
  /** How a command runs inside the merged tree. @default in this process's namespace (bestof's, once it runs in one) */
  readonly exec?: RunInside;
  readonly signal?: AbortSignal;
}

/**
 * Runs `command args` in `cwd` where the mounts are seen. Without one, this process works in the
 * merged tree itself (bestof runs itself in the namespace: src/process/namespace.ts): git through
 * runGit, files through node. Tests that hold the mounts in an OverlayHolder's namespace pass one
 * that enters it.
 */
export type RunInside = (command: string, args: readonly string[], cwd: string) => Promise<{ readonly code: number; readonly output: string }>;

/**
 * A new branch `branch` at the base checkout's commit and its copy-on-write worktree at `path`,
 * like `git worktree add --no-track -b <branch> <path> <base>` but without the checkout.
 */
export async function addCowWorktree(repo: string, opts: CowWorktreeOptions): Promise<Result<void>> {
  const call = { signal: opts.signal };
  const path = resolve(opts.path);
  const lowerHead = await runGit(opts.lower, ['rev-parse', '--verify', '--quiet', 'HEAD'], call);
  const base = lowerHead.stdout.trim();
  if (lowerHead.code !== 0 || base === '') return err(`cannot create worktree ${path}: the shared base checkout ${opts.lower} has no commit checked out`);
  if (existsSync(path) && readdirSync(path).length > 0) {
    return err(`cannot create worktree: ${path} already exists and is not empty; remove it or choose another worktree folder`);
  }
  if (existsSync(opts.layer) && readdirSync(opts.layer).length > 0) {
    return err(`cannot create worktree ${path}: its layer folder ${opts.layer} is not empty (from an earlier run?); remove it`);
  }
  const branchMade = await runGit(repo, ['update-ref', `refs/heads/${opts.branch}`, base, ''], call);
  if (branchMade.code !== 0)
    return err(`cannot create branch ${opts.branch}: ${gitMessage(branchMade.stderr || branchMade.stdout)} (does it exist already, from an earlier run?)`);
  const made = await linkAndMount(repo, path, opts, true);
  if (made.ok) return made;
  await discardWorktree(repo, path).catch(() => undefined);
  await removeLayerDir(opts.layer).catch(() => undefined);
  await runGit(repo, ['update-ref', '-d', `refs/heads/${opts.branch}`, base]).catch(() => undefined);
  return err(`cannot create worktree ${path} on branch ${opts.branch}: ${made.error}`);
}

/**
 * A copy-on-write worktree at `path` on the existing branch `branch` (a resumed run whose worktree
 * is gone or was half made): the base checkout's index and files, then `git reset --hard` to the
 * branch's tip, which writes only the files that differ from the base into the upper layer.
 * Whatever was left at `path` (an admin entry, the mount point's `.git` file) and in `layer` goes
 * first: the caller has unmounted it, and no agent's work is in it (see the resume's rules).
 */
export async function addCowWorktreeOnBranch(repo: string, opts: CowWorktreeOptions): Promise<Result<void>> {
  const call = { signal: opts.signal };
  const path = resolve(opts.path);
  await discardWorktree(repo, path, call);
  await removeLayerDir(opts.layer);
  const made = await linkAndMount(repo, path, opts, true);
  if (!made.ok) return err(`cannot create worktree ${path} on branch ${opts.branch}: ${made.error}`);
  // In the merged tree: outside the namespace git would write under the mount point.
  const args = ['reset', '--hard', '--quiet'];
  const reset = opts.exec ? await opts.exec('git', args, path) : await runGit(path, args, call).then((r) => ({ code: r.code, output: r.stderr || r.stdout }));
  if (reset.code !== 0) return err(`cannot check out ${opts.branch} in ${path}: ${gitMessage(reset.output)}`);
  return ok();
}

/**
 * Turns a mounted copy-on-write worktree into a plain folder at the same path, for a worktree that
 * must outlive the run (`keep_worktrees`, or work that could not be saved): outside the namespace
 * the mount point is empty. The merged tree is copied beside it, unmounted, and moved in place;
 * the layer is deleted. The admin entry and index stay (git refreshes the stat data once).
 */
export async function materializeCowWorktree(opts: { path: string; layer: string; holder: OverlayMounts; exec?: RunInside }): Promise<Result<void>> {
  const path = resolve(opts.path);
  const copy = `${path}.materializing`;
  await removeTree(copy);
  // The merged tree, copied with modes, symlinks as they are and times kept.
  const copied = opts.exec
    ? await opts.exec('cp', ['-a', `${path}/.`, copy], dirname(path))
    : await cp(path, copy, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true }).then(
        () => ({ code: 0, output: '' }),
        (error: Error) => ({ code: 1, output: error.message }),
      );
  if (copied.code !== 0) {
    await removeTree(copy).catch(() => undefined);
    return err(`cannot copy worktree ${path} out of its overlay: ${copied.output}`);
  }
  const unmounted = await opts.holder.unmount(path);
  if (!unmounted.ok) {
    await removeTree(copy).catch(() => undefined);
    return err(`cannot unmount worktree ${path}: ${unmounted.error}`);
  }
  await removeTree(path);
  await rename(copy, path);
  await removeLayerDir(opts.layer);
  return ok();
}

/**
 * Mounts an existing copy-on-write worktree again (a new holder after bestof was killed, or a
 * resumed run): its upper layer is on disk with every change the agent made; its admin entry and
 * index are git's. A worktree whose admin entry is gone gets a new one on its branch (its index
 * then compares against the branch tip, and the upper layer's files show as changes).
 */
export async function remountCowWorktree(repo: string, opts: CowWorktreeOptions): Promise<Result<void>> {
  const path = resolve(opts.path);
  if (!existsSync(join(opts.layer, 'upper'))) return err(`cannot mount worktree ${path} again: its layer ${opts.layer} is gone`);
  const admin = adminDirNamedBy(path);
  if (admin !== undefined && existsSync(admin)) {
    await mkdir(join(opts.layer, 'work'), { recursive: true });
    return opts.holder.mount(layers(opts, path));
  }
  return linkAndMount(repo, path, opts, false);
}

/**
 * The admin entry (`git worktree add --no-checkout`), the `.git` file in the upper layer, the
 * index, then the mount. `fresh`: the index is the base checkout's (its stat data hold for the
 * lower files); else it is read from the branch tip (`read-tree` touches no worktree file, so it
 * runs outside the namespace), without stat data: the first `git status` hashes every file once.
 */
async function linkAndMount(repo: string, path: string, opts: CowWorktreeOptions, fresh: boolean): Promise<Result<void>> {
  const call = { signal: opts.signal };
  // Outside the namespace the mount point holds only the `.git` file of a lost admin entry.
  if (!fresh) await discardWorktree(repo, path, call);
  await mkdir(dirname(path), { recursive: true });
  const add = await withWorktreesLock(repo, () => runGit(repo, ['worktree', 'add', '--quiet', '--no-checkout', path, opts.branch], call), call);
  if (add.code !== 0) return err(gitMessage(add.stderr || add.stdout));
  const admin = adminDirNamedBy(path);
  const lowerAdmin = adminDirNamedBy(opts.lower);
  if (admin === undefined || lowerAdmin === undefined) return err(`git made no admin entry for ${path} or ${opts.lower}`);
  // The same `.git` file is the merged tree's (copied into the upper layer below): the same dirs.
  await rememberNewWorktreeDirs(repo, path, call);
  const upper = join(opts.layer, 'upper');
  await mkdir(upper, { recursive: true });
  await mkdir(join(opts.layer, 'work'), { recursive: true });
  // The upper layer's `.git` hides the base checkout's: the merged tree is this worktree.
  await writeFile(join(upper, '.git'), await readFile(join(path, '.git')));
  if (fresh) {
    await copyFile(join(lowerAdmin, 'index'), join(admin, 'index'));
  } else {
    const read = await runGit(path, ['read-tree', '--reset', 'HEAD'], call);
    if (read.code !== 0) return err(`cannot read the index of ${path} from ${opts.branch}: ${gitMessage(read.stderr || read.stdout)}`);
  }
  return opts.holder.mount(layers(opts, path));
}

function layers(opts: CowWorktreeOptions, path: string): { lower: string; upper: string; work: string; target: string } {
  return { lower: resolve(opts.lower), upper: join(resolve(opts.layer), 'upper'), work: join(resolve(opts.layer), 'work'), target: path };
}

/**
 * Removes a copy-on-write worktree: unmounted, its admin entry and mount point removed, its
 * layer deleted. The caller has saved its work (as for a plain worktree's forced removal).
 */
export async function removeCowWorktree(
  repo: string,
  opts: { path: string; layer: string; holder?: OverlayMounts; signal?: AbortSignal },
): Promise<Result<void>> {
  const path = resolve(opts.path);
  if (opts.holder) {
    const unmounted = await opts.holder.unmount(path);
    // Not mounted (a new holder after a kill): nothing to undo there.
    if (!unmounted.ok && !/not mounted|no mount point/i.test(unmounted.error)) return err(`cannot unmount worktree ${path}: ${unmounted.error}`);
  }
  await discardWorktree(repo, path, { signal: opts.signal });
  await removeLayerDir(opts.layer);
  return ok();
}

/**
 * Deletes a candidate's layer folder: overlayfs leaves `work/work` without any permission (mode
 * 000), which a recursive delete as a user without root cannot list; removeTree opens it up.
 */
export async function removeLayerDir(dir: string): Promise<void> {
  await removeTree(dir);
}
