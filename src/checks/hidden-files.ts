/**
 * A hidden check's files (`hidden`, `into`): laid into the scoring tree just before that check
 * runs and taken away just after, whatever happened (./run-checks.ts). The scoring tree is the
 * candidate's worktree while no agent runs in it (src/engine/scoring/score.ts), and what the
 * checks leave there is removed by the put-back after them (./scoring-tree.ts), so no agent, diff,
 * commit or merge ever holds these files.
 *
 *   where     only where nothing is: `into` and every folder above it that is missing are made, and
 *             only those are removed after. A folder above it that is a link (a candidate's commit
 *             can hold `test -> /tmp/x`) or a file, or `into` itself already there, and the files are
 *             not laid: the check fails with the reason, and no hidden byte leaves the tree
 *   how       files copied one by one, never through a link: a link in the hidden folder (the plan
 *             refuses them, ../engine/plan/hidden-checks.ts) is never followed, the check fails
 *   guarded   in the checks' sandbox, `into` is read-only to the check (./run-checks.ts); without it,
 *             the files are compared with the hidden folder after the check, and a change (a test the
 *             candidate's code rewrote there while it ran) fails the check
 */
import { lstat, mkdir, readdir, readFile, copyFile, constants, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { removeTree } from '../owned-tree.js';
import { asideRoot } from './scoring-tree.js';

/**
 * Where the path laid into a worktree is written down while it is there: beside the worktree, in
 * the aside folder no agent sees. A bestof killed during a hidden check leaves the files in the
 * worktree; a resume (src/engine/workspace/workspace.ts) and `bestof clean` take them away by this
 * record before any agent runs there or any work is saved (the agent's `git add -A` would commit them).
 */
export function hiddenFilesRecord(worktree: string): string {
  return join(asideRoot(worktree), `${basename(resolve(worktree))}.hidden-files`);
}

/** The hidden files a killed bestof left in `worktree` (its record says where), taken away; their path, if any. */
export async function removeLeftHiddenFiles(worktree: string): Promise<string | undefined> {
  const record = hiddenFilesRecord(worktree);
  const path = await readFile(record, 'utf8').catch(() => undefined);
  if (path === undefined) return undefined;
  const root = resolve(worktree);
  // Only ever inside the worktree, whatever the record says.
  if (path.startsWith(root + sep)) await removeTree(path);
  await rm(record, { force: true });
  return path.startsWith(root + sep) ? relative(root, path) : undefined;
}

export type LaidHiddenFiles =
  | {
      readonly ok: true;
      /** Where the files are: `into` in the worktree, absolute. */
      readonly path: string;
      /** Files laid, relative to `path`, in the hidden folder's order; what differs now from the hidden folder (none: unchanged). */
      changed(): Promise<readonly string[]>;
      /** Takes away `into` and every folder made for it. */
      remove(): Promise<void>;
    }
  | { readonly ok: false; readonly reason: string };

export interface HiddenCheck {
  readonly name: string;
  /** The hidden folder, absolute (the plan resolves it). */
  readonly hidden: string;
  /** Relative to the worktree's root. */
  readonly into: string;
}

export async function layHiddenFiles(worktree: string, check: HiddenCheck): Promise<LaidHiddenFiles> {
  // The plan resolved it; a relative one here would be read from the worktree.
  if (!isAbsolute(check.hidden)) throw new Error(`layHiddenFiles: check ${check.name}'s hidden folder is not absolute: ${check.hidden}`);
  const root = resolve(worktree);
  const target = resolve(root, check.into);
  if (!target.startsWith(root + sep)) throw new Error(`layHiddenFiles: into ${JSON.stringify(check.into)} is not inside ${root}`);
  // Written before anything is laid: the first folder made, or `into` itself, is what goes after.
  const record = hiddenFilesRecord(root);
  await mkdir(dirname(record), { recursive: true });
  const made = await makeParents(root, dirname(target), check.into, async (first) => writeFile(record, first));
  if (!made.ok) {
    await rm(record, { force: true });
    return made;
  }
  if (made.first === undefined) {
    // Every folder above it was there: `into` itself must not be (nothing of the tree is ever replaced).
    if ((await lstat(target).catch(() => undefined)) !== undefined) {
      await rm(record, { force: true });
      return {
        ok: false,
        reason: `\`${check.into}\` is already in the tree scored (a file the candidate committed there?), where the hidden check's files go: they are laid only where nothing is, so the check did not run`,
      };
    }
    await writeFile(record, target);
  }
  const undo = async (): Promise<void> => {
    await removeTree(made.first ?? target);
    await rm(record, { force: true });
  };
  try {
    const source = await lstat(check.hidden).catch(() => undefined);
    if (!source?.isDirectory()) {
      await undo();
      return { ok: false, reason: `the hidden folder ${check.hidden} is no longer a folder: the check did not run` };
    }
    const files = await copyTree(check.hidden, target);
    if (!files.ok) {
      await undo();
      return files;
    }
    return { ok: true, path: target, changed: () => changedFiles(check.hidden, target, files.value), remove: undo };
  } catch (error) {
    await undo();
    throw error;
  }
}

/** The folders above `into`, made where missing; a link or a file among them is refused (never written through). */
async function makeParents(
  root: string,
  dir: string,
  into: string,
  beforeFirst: (first: string) => Promise<void>,
): Promise<{ ok: true; first?: string } | { ok: false; reason: string }> {
  let first: string | undefined;
  let path = root;
  for (const part of relative(root, dir).split(sep).filter(Boolean)) {
    path = join(path, part);
    const info = await lstat(path).catch(() => undefined);
    if (info === undefined) {
      if (first === undefined) await beforeFirst(path);
      await mkdir(path);
      first ??= path;
    } else if (!info.isDirectory()) {
      const what = info.isSymbolicLink() ? 'a symbolic link' : 'a file';
      return {
        ok: false,
        reason: `\`${relative(root, path)}\` is ${what} in the tree scored, where the hidden check's files go (into = "${into}"): they are never laid through it, so the check did not run`,
      };
    }
  }
  return first === undefined ? { ok: true } : { ok: true, first };
}

/** Copies the folder's files and folders (nothing else) under `to`, which must not exist; their paths, relative. */
async function copyTree(from: string, to: string): Promise<{ ok: true; value: string[] } | { ok: false; reason: string }> {
  const files: string[] = [];
  const walk = async (below: string): Promise<string | undefined> => {
    await mkdir(join(to, below));
    for (const entry of await readdir(join(from, below), { withFileTypes: true })) {
      const path = below === '' ? entry.name : join(below, entry.name);
      if (entry.isDirectory()) {
        const odd = await walk(path);
        if (odd !== undefined) return odd;
      } else if (entry.isFile()) {
        // COPYFILE_EXCL: the target is new, in a folder just made; nothing is ever written over.
        await copyFile(join(from, path), join(to, path), constants.COPYFILE_EXCL);
        files.push(path);
      } else return path;
    }
    return undefined;
  };
  const odd = await walk('');
  if (odd !== undefined) {
    return { ok: false, reason: `the hidden folder ${from} holds "${odd}", which is not a file (a link is never followed): the check did not run` };
  }
  return { ok: true, value: files };
}

/**
 * The laid files that differ from the hidden folder's now (rewritten or deleted). Files added beside
 * them are not counted: a runner's cache may land there, and code a check runs can add a file
 * anywhere in the tree, hidden folder or not.
 */
async function changedFiles(from: string, to: string, laid: readonly string[]): Promise<string[]> {
  const changed: string[] = [];
  for (const path of laid) {
    const [original, now] = await Promise.all([readFile(join(from, path)), readFile(join(to, path)).catch(() => undefined)]);
    if (now === undefined || !original.equals(now)) changed.push(path);
  }
  return changed;
}
