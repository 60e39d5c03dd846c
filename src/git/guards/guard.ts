/**
 * The shared git dir, watched around every agent call.
 *
 * A candidate's worktree shares the repository's git dir: without the sandbox an agent can write
 * `.git/config` (a filter, an fsmonitor, `core.worktree`), hooks, `info/` (attributes, exclude,
 * grafts, sparse-checkout), replace refs, and its own worktree's admin files (`config.worktree`,
 * `commondir`, the `.git` link). Those change what git shows bestof and the user, or run the agent's
 * code in their git calls. `watchGitDir` saves them before the call; `restore` afterwards puts back
 * the saved bytes, removes what was added, and returns what had changed (as frozen tampering: such a
 * candidate cannot win).
 *
 * The shared part is compared with the state from before the first of the overlapping agent calls
 * on the repository (parallel candidates share it). Without the sandbox, bestof cannot tell which of
 * several agents running at the same time made a change: the candidate whose call ends first is
 * flagged, and `overlapped` says so. Branches other than the candidate's are not watched here (a user
 * may commit while bestof runs); the commit step re-points a HEAD the agent moved (see commit.ts).
 *
 * Around the checks run without the sandbox (their code is the candidate's too), only the worktree's
 * own files are watched (`watchWorktreeOwnFiles`: no shared baseline, so nothing a rival's agent did
 * meanwhile is charged to this candidate), and `replacedFolder` / `notAFolder` say when the worktree
 * folder itself is not the one bestof made any more. The shared part is not watched around checks
 * (docs/protection.md, "What no sandbox solves").
 */
import { lstat, mkdir, readFile, readdir, readlink, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import type { Dirent, Stats } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { gitDirsOf, gitOut, splitLines } from '../running/exec.js';

/** A watched file (`.git/...`, or `.git` for the worktree's link) or replace ref that an agent changed. */
export interface GitDirChange {
  readonly path: string;
  readonly change: 'modified' | 'added' | 'deleted' | 'type_changed';
}

type Entry = { readonly kind: 'file'; readonly data: Buffer; readonly mode: number } | { readonly kind: 'link'; readonly target: string };
/** Saved files by absolute path. */
type Files = Map<string, Entry>;

interface Watched {
  /** Absolute paths of single files to watch. */
  readonly files: readonly string[];
  /** Absolute paths of folders watched with everything under them. */
  readonly dirs: readonly string[];
}

interface Shared {
  readonly commonDir: string;
  readonly files: Files;
  /** `refs/replace/*` -> object. */
  readonly replaceRefs: Map<string, string>;
}

interface SharedWatch {
  active: number;
  started: number;
  readonly baseline: Promise<Shared>;
  /**
   * The shared part of each restore, one after another: two agents whose calls end together must
   * not both see (and both be charged with) one change; the second sees it put back already.
   */
  restoring: Promise<unknown>;
}

const sharedWatches = new Map<string, SharedWatch>();

async function entryOf(path: string): Promise<Entry | undefined> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return { kind: 'link', target: await readlink(path) };
    if (st.isFile()) return { kind: 'file', data: await readFile(path), mode: st.mode & 0o7777 };
    return undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
}

async function filesUnder(dir: string): Promise<string[]> {
  let names: Dirent[];
  try {
    names = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw err;
  }
  const out: string[] = [];
  for (const d of names) {
    const full = join(dir, d.name);
    if (d.isDirectory()) out.push(...(await filesUnder(full)));
    else out.push(full);
  }
  return out;
}

const SNAPSHOT_READS_AT_ONCE = 32;

async function snapshot(watched: Watched): Promise<Files> {
  const files: Files = new Map();
  const paths = [...watched.files, ...(await Promise.all(watched.dirs.map(filesUnder))).flat()];
  // Several at once: a git dir's hooks and info files are a dozen or more, each an lstat and a read,
  // and one after another their waits added up to milliseconds around every agent call. A bounded
  // number at once: an agent that fills the hooks folder with files must not run bestof out of file
  // handles.
  for (let i = 0; i < paths.length; i += SNAPSHOT_READS_AT_ONCE) {
    const chunk = paths.slice(i, i + SNAPSHOT_READS_AT_ONCE);
    const entries = await Promise.all(chunk.map(entryOf));
    chunk.forEach((path, j) => {
      const entry = entries[j];
      if (entry) files.set(path, entry);
    });
  }
  return files;
}

function sameEntry(a: Entry, b: Entry): boolean {
  if (a.kind === 'link' || b.kind === 'link') return a.kind === b.kind && a.kind === 'link' && b.kind === 'link' && a.target === b.target;
  return a.mode === b.mode && a.data.equals(b.data);
}

async function writeEntry(path: string, entry: Entry): Promise<void> {
  await rm(path, { recursive: true, force: true });
  await mkdir(dirname(path), { recursive: true });
  if (entry.kind === 'link') await symlink(entry.target, path);
  else {
    await writeFile(path, entry.data, { mode: entry.mode });
    await chmod(path, entry.mode);
  }
}

/** Puts `saved` back over what is there now; returns the changed paths with what had happened to them. */
async function restoreFiles(watched: Watched, saved: Files): Promise<GitDirChange[]> {
  const now = await snapshot(watched);
  const changes: GitDirChange[] = [];
  for (const [path, entry] of saved) {
    const current = now.get(path);
    if (current && sameEntry(current, entry)) continue;
    changes.push({ path, change: current ? (current.kind === entry.kind ? 'modified' : 'type_changed') : 'deleted' });
    await writeEntry(path, entry);
  }
  for (const path of now.keys()) {
    if (saved.has(path)) continue;
    changes.push({ path, change: 'added' });
    await rm(path, { recursive: true, force: true });
  }
  return changes;
}

/** Refs under `prefixes` (each ending in `/`) -> object, from one `git for-each-ref`. */
async function refsUnder(repo: string, prefixes: readonly string[]): Promise<Map<string, string>> {
  const out = await gitOut(repo, ['for-each-ref', '--format=%(refname) %(objectname)', ...prefixes]);
  return new Map(splitLines(out).map((line) => line.split(' ') as [string, string]));
}

function onlyUnder(refs: ReadonlyMap<string, string>, prefix: string): Map<string, string> {
  return new Map([...refs].filter(([ref]) => ref.startsWith(prefix)));
}

async function replaceRefs(repo: string): Promise<Map<string, string>> {
  return refsUnder(repo, ['refs/replace/']);
}

function sharedWatched(commonDir: string): Watched {
  return { files: [join(commonDir, 'config')], dirs: [join(commonDir, 'hooks'), join(commonDir, 'info')] };
}

async function snapshotShared(commonDir: string, replace: Promise<Map<string, string>>): Promise<Shared> {
  // Together: a failed read of the refs (git killed, a broken config) is never left unhandled
  // while the files are read.
  const [files, replaceRefs] = await Promise.all([snapshot(sharedWatched(commonDir)), replace]);
  return { commonDir, files, replaceRefs };
}

/**
 * Restores the shared git dir to `baseline`; replace refs with git (loose or packed alike).
 * `branches`: every `refs/heads/*` as well, read by the same `git for-each-ref` (returned as is).
 */
async function restoreShared(repo: string, baseline: Shared, branches: boolean): Promise<{ records: GitDirChange[]; branches?: Map<string, string> }> {
  const report = (abs: string): string => `.git/${relative(baseline.commonDir, abs)}`;
  const records: GitDirChange[] = (await restoreFiles(sharedWatched(baseline.commonDir), baseline.files)).map((c) => ({
    path: report(c.path),
    change: c.change,
  }));
  const refs = branches ? await refsUnder(repo, ['refs/replace/', 'refs/heads/']) : await replaceRefs(repo);
  const now = branches ? onlyUnder(refs, 'refs/replace/') : refs;
  for (const [ref, sha] of now) {
    if (baseline.replaceRefs.get(ref) === sha) continue;
    records.push({ path: `.git/${ref}`, change: baseline.replaceRefs.has(ref) ? 'modified' : 'added' });
    await gitOut(repo, baseline.replaceRefs.has(ref) ? ['update-ref', ref, baseline.replaceRefs.get(ref) ?? ''] : ['update-ref', '-d', ref]);
  }
  for (const [ref, sha] of baseline.replaceRefs) {
    if (now.has(ref)) continue;
    records.push({ path: `.git/${ref}`, change: 'deleted' });
    await gitOut(repo, ['update-ref', ref, sha]);
  }
  return { records, ...(branches ? { branches: onlyUnder(refs, 'refs/heads/') } : {}) };
}

export interface GitDirWatch {
  /** With `branches`: every `refs/heads/*` and where it pointed when the watch began. */
  readonly branchesBefore?: ReadonlyMap<string, string>;
  /**
   * Puts back every watched file and replace ref that changed since the watch began and says what
   * had changed (`.git/...` paths). Call exactly once, after the agent call. With `branches`, also
   * every `refs/heads/*` as the restore found them (`branchesAfter`: read with the replace refs, one
   * git process for both).
   */
  restore(): Promise<{ readonly changes: readonly GitDirChange[]; readonly overlapped: boolean; readonly branchesAfter?: ReadonlyMap<string, string> }>;
}

/**
 * Absolute git dirs of a worktree: the shared one and the worktree's own admin dir. Asked of git
 * once per folder and process (gitDirsOf), not before every agent call: they are what bestof's
 * own git calls there use, and a `.git` link an agent points elsewhere is put back after its
 * call (the link is one of the watched files), so asking again could only ever follow an
 * agent's redirection, never find the real dirs moved.
 */
async function gitDirs(worktree: string): Promise<{ commonDir: string; adminDir: string }> {
  const dirs = await gitDirsOf(worktree);
  if (!dirs) throw new Error(`watchGitDir: git cannot tell the git dirs of ${worktree} (not a repository?)`);
  return { commonDir: dirs.commonDir, adminDir: dirs.gitDir };
}

/**
 * Starts watching the git dirs of `worktree` (see the module doc). `branches`: also read every
 * `refs/heads/*` as the watch begins (`branchesBefore`, for reclaimHead). When this watch takes the
 * shared baseline, they come from the same `git for-each-ref` as the replace refs (one git process
 * fewer per agent call; the two reads happened at the same moment before, side by side).
 */
export async function watchGitDir(worktree: string, opts: { readonly branches?: boolean } = {}): Promise<GitDirWatch> {
  const { commonDir, adminDir } = await gitDirs(worktree);
  const folder = await lstat(worktree);
  let shared = sharedWatches.get(commonDir);
  let branches: Promise<Map<string, string>> | undefined;
  if (!shared) {
    const refs = refsUnder(worktree, opts.branches ? ['refs/replace/', 'refs/heads/'] : ['refs/replace/']);
    if (opts.branches) branches = refs.then((all) => onlyUnder(all, 'refs/heads/'));
    shared = {
      active: 0,
      started: 0,
      baseline: snapshotShared(
        commonDir,
        refs.then((all) => onlyUnder(all, 'refs/replace/')),
      ),
      restoring: Promise.resolve(),
    };
    sharedWatches.set(commonDir, shared);
  } else if (opts.branches) {
    branches = refsUnder(worktree, ['refs/heads/']);
  }
  const watch = shared;
  watch.active += 1;
  watch.started += 1;
  const startedBefore = watch.started;
  const activeAtStart = watch.active;
  /** This watch is over (restored, or it failed): the shared baseline goes with the last of its watchers. */
  const leave = (): void => {
    watch.active -= 1;
    if (watch.active === 0 && sharedWatches.get(commonDir) === watch) sharedWatches.delete(commonDir);
  };
  // The worktree's own files: only this candidate's agent works there.
  const own = ownFiles(worktree, commonDir, adminDir);
  // All three awaited together: a git read that fails (its git killed by a signal to bestof's
  // process group, say) while the files are still being read is this call's error, not an
  // unhandled rejection that ends bestof.
  let ownSaved: Files;
  let baseline: Shared;
  let branchesBefore: Map<string, string> | undefined;
  try {
    [ownSaved, baseline, branchesBefore] = await Promise.all([snapshot(own), watch.baseline, branches]);
  } catch (error) {
    // This watch never began: the next agent call takes a new baseline rather than the failed one.
    leave();
    throw error;
  }
  let done = false;
  return {
    ...(branchesBefore ? { branchesBefore } : {}),
    async restore() {
      if (done) throw new Error('watchGitDir: restore() was already called');
      done = true;
      const overlapped = activeAtStart > 1 || watch.started !== startedBefore || watch.active > 1;
      // Nothing is restored through a worktree folder the call replaced (an agent without the sandbox
      // can rename its folder and put a symbolic link to any folder of the user's in its place):
      // bestof would write its `.git` link there, and its git calls after this one would work there.
      const replaced = replacedFolder(worktree, folder);
      const ownDone = replaced.then((now) => (now === undefined ? restoreFiles(own, ownSaved) : undefined));
      // The place in the shared queue is taken now, before anything is awaited, in the order
      // restore() is called: two restores called together were otherwise charged in whichever order
      // their own look at the folder and their own files happened to finish. The shared part still
      // waits for them (the worktree's `.git` link put back first: restoreShared runs git in the
      // worktree), and is skipped for a replaced folder.
      const mine = Promise.all([watch.restoring, ownDone]).then(([, ownRestored]) =>
        ownRestored === undefined ? undefined : restoreShared(worktree, baseline, opts.branches === true),
      );
      watch.restoring = mine.catch(() => undefined);
      try {
        const now = await replaced;
        if (now !== undefined) throw new WorktreeReplacedError(worktree, now);
        const ownChanges = asGitPaths(worktree, commonDir, (await ownDone) ?? []);
        const shared = await mine;
        if (shared === undefined) throw new Error('bug: the shared restore was skipped for a folder that was not replaced');
        return { changes: [...shared.records, ...ownChanges], overlapped, ...(shared.branches ? { branchesAfter: shared.branches } : {}) };
      } finally {
        leave();
      }
    },
  };
}

/**
 * A linked worktree's own git files: its `.git` link, and in its admin dir `config.worktree` (which,
 * with `extensions.worktreeConfig`, can set `core.worktree` and make another folder the worktree git
 * works on), `commondir`, `gitdir` and `info/`. None for the main checkout.
 */
function ownFiles(worktree: string, commonDir: string, adminDir: string): Watched {
  if (adminDir === commonDir) return { files: [], dirs: [] };
  return {
    files: [join(adminDir, 'config.worktree'), join(adminDir, 'commondir'), join(adminDir, 'gitdir'), join(worktree, '.git')],
    dirs: [join(adminDir, 'info')],
  };
}

export interface OwnFilesWatch {
  /** Puts back each own file that changed since the watch began and says which (`.git`, `.git/worktrees/<name>/...`). Call as often as needed. */
  putBack(): Promise<GitDirChange[]>;
}

/**
 * Watches a worktree's own git files (ownFiles) around what runs in it outside an agent call: the
 * checks, and setup run again before them, without the sandbox (which keeps them read-only). Code of
 * the candidate's that they run could point the `.git` link at the user's git dir, or set
 * `core.worktree` in `config.worktree` to the user's checkout: bestof's git calls there after the
 * checks (the put-back's `git reset --hard` and `git clean`) would then act on the user's repository
 * or files. The caller puts them back before each of its git calls there. Only this worktree's files:
 * no shared baseline, so nothing of another candidate's is charged here.
 */
export async function watchWorktreeOwnFiles(worktree: string): Promise<OwnFilesWatch> {
  const { commonDir, adminDir } = await gitDirs(worktree);
  const own = ownFiles(worktree, commonDir, adminDir);
  const saved = await snapshot(own);
  return {
    async putBack() {
      return asGitPaths(worktree, commonDir, await restoreFiles(own, saved));
    },
  };
}

/** Own files' changes by the names the run gives them: `.git` (the link), `.git/worktrees/<name>/...`. */
function asGitPaths(worktree: string, commonDir: string, changes: readonly GitDirChange[]): GitDirChange[] {
  return changes.map((c) => ({ path: c.path === join(worktree, '.git') ? '.git' : `.git/${relative(commonDir, c.path)}`, change: c.change }));
}

/** A worktree folder that is no longer the one bestof made: nothing of bestof's may happen in it any more. */
export class WorktreeReplacedError extends Error {
  override readonly name = 'WorktreeReplacedError';
  constructor(
    readonly worktree: string,
    readonly now: string,
  ) {
    super(
      `its worktree folder ${worktree} is not the folder bestof made any more (it is now ${now}), so bestof does nothing in it from here on: no commit, no check`,
    );
  }
}

/** What stands at `path` now when it is not the folder `before` was (a symbolic link, gone, another folder); undefined when it is. */
export async function replacedFolder(path: string, before: { readonly dev: number; readonly ino: number }): Promise<string | undefined> {
  const now = await lstat(path).catch(() => undefined);
  if (now === undefined) return 'gone';
  if (!now.isDirectory()) return notAFolderInWords(path, now);
  return now.dev === before.dev && now.ino === before.ino ? undefined : 'another folder';
}

/**
 * What stands at a worktree's path when it is not a folder (a symbolic link, such as one to the
 * user's checkout, or a file); undefined for a folder or nothing. For a bestof that did not make the
 * folder itself (a resume, `bestof clean`) and so cannot compare it with what it made: a worktree is
 * never a link, so one there was put by an agent, or by the code its checks ran, before a kill -9.
 */
export async function notAFolder(path: string): Promise<string | undefined> {
  const now = await lstat(path).catch(() => undefined);
  return now === undefined || now.isDirectory() ? undefined : notAFolderInWords(path, now);
}

async function notAFolderInWords(path: string, now: Stats): Promise<string> {
  return now.isSymbolicLink() ? `a symbolic link to ${await readlink(path).catch(() => '?')}` : 'a file';
}

/** Is any run-level watch active on this repository's git dir (for tests). */
export function activeGitDirWatches(): number {
  return [...sharedWatches.values()].reduce((n, w) => n + w.active, 0);
}
