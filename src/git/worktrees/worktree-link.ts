/**
 * The link between a candidate's worktree folder and the repository: the folder's `.git` file
 * (`gitdir: <common>/worktrees/<name>`) and that admin entry (`gitdir` pointing back, `commondir`,
 * `HEAD`, the index). An agent can destroy it (`rm .git`, `git init`, `rm -rf ../../.git/worktrees`);
 * then every git command in the folder fails or, worse, works on another repository, and the
 * agent's files would be lost with the folder. Repairing rewrites the link and never touches the
 * files: what the agent wrote shows as changes, ready to be committed.
 */
import { existsSync, lstatSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { err, ok, type Result } from '../../result.js';
import { gitMessage, runGit } from '../running/exec.js';
import {
  adminDirNamedBy,
  adminDirsOf,
  canonicalPath,
  commonGitDir,
  isAdminEntryOf,
  readLine,
  withWorktreesLock,
  worktreeOfAdminDir,
  worktreesOnBranch,
} from './worktree-admin.js';
import { notAFolder } from '../guards/guard.js';

export interface LinkRepair {
  readonly status: 'intact' | 'repaired';
  /** What was broken, in words (status "repaired"). */
  readonly problem?: string;
  /** Where the agent's own `.git` folder (a `git init` inside the worktree) was moved: it is not the candidate's work. */
  readonly movedAside?: string;
}

/** Makes `worktree` a working git worktree of `branch` again without touching its files: the `.git` file and git's admin entry are rewritten if broken, HEAD set to the branch, the index reset to the branch tip (files stay as they are on disk, so their changes show as changes). */
export async function repairWorktreeLink(repo: string, worktree: string, branch: string): Promise<Result<'intact' | 'repaired'>> {
  const repaired = await repairWorktreeLinkDetailed(repo, worktree, branch);
  return repaired.ok ? ok(repaired.value.status) : repaired;
}

/**
 * `repairWorktreeLink`, saying what was wrong and where an agent's nested `.git` went.
 *
 * An intact link keeps its HEAD, even when it is not on `branch` (an agent's checkout or detached
 * commits): `reclaimHead` judges that before the next commit and keeps the agent's commits that
 * build on the kept one. HEAD is set to `branch` when the link is rewritten and the admin entry's
 * HEAD is missing, unreadable, or the entry is new.
 */
export async function repairWorktreeLinkDetailed(
  repo: string,
  worktree: string,
  branch: string,
  /** `git rev-parse --show-toplevel` in the folder, when the caller has just asked it (../history/head-view.ts). @default asked here */
  opts: { readonly topLevel?: string | undefined } = {},
): Promise<Result<LinkRepair>> {
  const abs = resolve(worktree);
  if (!isDirectory(abs)) {
    const standing = await notAFolder(abs);
    return err(`cannot repair worktree ${abs}: ${standing === undefined ? 'the folder does not exist' : `it is ${standing}, not the folder bestof made`}`);
  }
  const common = await commonGitDir(repo);
  if ((await linkProblem(common, abs, opts.topLevel)) === undefined) return ok({ status: 'intact' });
  return withWorktreesLock(repo, async () => {
    const problem = await linkProblem(common, abs);
    if (problem === undefined) return ok({ status: 'intact' });
    const target = canonicalPath(abs);
    const elsewhere = worktreesOnBranch(common, branch, abs);
    if (elsewhere.length > 0) return err(`cannot repair worktree ${abs} (${problem}): its branch ${branch} is checked out in ${elsewhere.join(', ')}`);
    const dotGit = join(abs, '.git');
    const named = adminDirNamedBy(abs);
    let movedAside: string | undefined;
    const kind = entryKind(dotGit);
    if (kind === 'dir') {
      movedAside = freeName(join(dirname(abs), `${basename(abs)}.agent-dot-git`));
      await rename(dotGit, movedAside);
    } else if (kind !== 'missing') {
      await rm(dotGit, { force: true });
    }

    const own = adminDirsOf(common, abs).find((dir) => worktreeOfAdminDir(dir) === target);
    const reusable = named !== undefined && isAdminEntryOf(common, named) && existsSync(named) && worktreeOfAdminDir(named) === undefined ? named : undefined;
    const admin = own ?? reusable ?? (await newAdminDir(common, basename(target)));
    await writeFile(join(admin, 'gitdir'), `${target}/.git\n`);
    await writeFile(join(admin, 'commondir'), '../..\n');
    const head = readLine(join(admin, 'HEAD'));
    if (admin !== own || head === undefined || !/^(ref: refs\/.+|[0-9a-f]{40,64})$/.test(head)) {
      await writeFile(join(admin, 'HEAD'), `ref: refs/heads/${branch}\n`);
    }
    await writeFile(dotGit, `gitdir: ${admin}\n`);

    // The index of the tip, the files as they are: the agent's changes show as changes.
    const reset = await runGit(abs, ['read-tree', '--reset', 'HEAD']);
    if (reset.code !== 0) return err(`repaired the .git link of ${abs}, but cannot reset its index to ${branch}: ${gitMessage(reset.stderr || reset.stdout)}`);
    await runGit(abs, ['update-index', '-q', '--refresh']); // exit 1 just says files differ
    const still = await linkProblem(common, abs);
    if (still !== undefined) return err(`cannot repair worktree ${abs}: ${still}`);
    return ok({ status: 'repaired', problem, ...(movedAside ? { movedAside } : {}) });
  });
}

/**
 * What is wrong with the folder's link to the repository; undefined when git sees it as a worktree
 * of it. `knownTopLevel`: what `git rev-parse --show-toplevel` said in the folder a moment ago;
 * it counts only once the files say the link is whole, as the call's own answer would.
 */
async function linkProblem(common: string, abs: string, knownTopLevel?: string): Promise<string | undefined> {
  const target = canonicalPath(abs);
  const dotGit = join(abs, '.git');
  const kind = entryKind(dotGit);
  if (kind === 'missing') return 'its .git file is missing';
  if (kind === 'dir') return 'its .git is a repository of its own (a `git init` inside the worktree)';
  if (kind !== 'file') return 'its .git is not a file';
  const named = adminDirNamedBy(abs);
  if (named === undefined) return 'its .git file is garbled';
  if (!isAdminEntryOf(common, named)) return `its .git file points outside the repository (${named})`;
  if (!isDirectory(named)) return `its admin entry ${named} is missing`;
  if (worktreeOfAdminDir(named) !== target) return `its .git file points at the admin entry of another worktree (${named})`;
  if (readLine(join(named, 'commondir')) === undefined) return `its admin entry ${named} has no commondir`;
  const top = knownTopLevel !== undefined ? { code: 0, stdout: knownTopLevel, stderr: '' } : await runGit(abs, ['rev-parse', '--show-toplevel']);
  if (top.code !== 0) return `git does not see it as a worktree: ${gitMessage(top.stderr || top.stdout)}`;
  if (canonicalPath(top.stdout.trim()) !== target) return `git sees it as part of ${top.stdout.trim()}`;
  return undefined;
}

function entryKind(path: string): 'missing' | 'file' | 'dir' | 'other' {
  try {
    const info = lstatSync(path);
    return info.isFile() ? 'file' : info.isDirectory() ? 'dir' : 'other';
  } catch {
    return 'missing';
  }
}

function isDirectory(path: string): boolean {
  return entryKind(path) === 'dir';
}

/** `<common>/worktrees/<name>` under a name no entry has yet (git's own scheme: the name, then name1, name2, ...). */
async function newAdminDir(common: string, name: string): Promise<string> {
  await mkdir(join(common, 'worktrees'), { recursive: true });
  for (let n = 0; ; n++) {
    const dir = join(common, 'worktrees', n === 0 ? name : `${name}${n}`);
    try {
      await mkdir(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

function freeName(path: string): string {
  if (!existsSync(path)) return path;
  for (let n = 2; ; n++) if (!existsSync(`${path}-${n}`)) return `${path}-${n}`;
}
