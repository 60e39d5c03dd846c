/**
 * The tree the checks see: exactly the candidate's commit, with `base`'s frozen paths, with what
 * changed outside `[checks] editable` put back as in `base`, plus the setup paths — and nothing
 * else. Whatever the agent left beside its commit would otherwise be scored too:
 *
 * - index bits: `assume-unchanged` / `skip-worktree` on a test file hide an edit from `git add -A`
 *   and from `git reset --hard`, so the check would run the edited file. The bits are cleared first
 *   (only on the flagged paths), then the worktree is reset to the commit (stat-based: it rewrites
 *   only files that differ).
 * - untracked and ignored files (a `node_modules/.bin/` shim, a `conftest.py` left uncommitted, a
 *   `sitecustomize.py`): moved aside to a folder outside the worktree (renames, no copying) and put
 *   back after the checks. They are the agent's scratch, not lost, but never scored. The setup paths
 *   (what `[setup]` copied or created, ignored folders such as `node_modules/` included) stay.
 * - `.gitattributes`: git converts a file by them when it writes and hashes it, so a changed one can
 *   leave a frozen file on disk (CRLF line endings, another encoding) other than the blob git sees.
 *   They are always kept as in base (../checks/frozen.ts GIT_ATTRIBUTES), and when the commit
 *   changed one, every tracked file is written anew as base's say.
 *
 * - an index that lies: an entry that names base's blob with the stat data of a gutted file on disk
 *   (git trusts stat data, so neither the diff nor the reset reads that file). The kept paths are
 *   compared by content after their restore, and written anew where they differ (./frozen.ts
 *   restoreKeptOffDisk).
 *
 * The cost grows with what the agent changed and left behind, and with the size of the kept
 * files (hashed once per scoring), not with the repository: an index read, a stat pass (`reset
 * --hard`), a walk that stops at untracked folders, renames, and the kept files' hashes.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, cp } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import {
  attachHead,
  clearIndexFlags,
  cleanUntracked,
  detachHead,
  flaggedIndexPaths,
  headBranchRef,
  resetHard,
  rewriteTrackedFiles,
  untrackedEntries,
  worktreeChanges,
  worktreeStamp,
} from '../git/worktrees/paths.js';
import { readHeadView } from '../git/history/head-view.js';
import { resolveCommit } from '../git/running/repo.js';
import {
  findEditableViolations,
  isGitAttributes,
  restoreChangedPaths,
  restoreFrozenPathsAtCommit,
  restoreKeptOffDisk,
  withGitAttributes,
  type TamperedPath,
} from './frozen.js';
import { openUpTree, removeTree } from '../owned-tree.js';

export interface ScoringTreeOptions {
  /** The spec author's revision. */
  readonly base: string;
  /** The candidate's committed work: what is scored. */
  readonly commit: string;
  readonly frozen: readonly string[];
  /** `[checks] editable`; empty = everything that is not frozen. */
  readonly editable: readonly string[];
  /** Setup paths (untracked or ignored), literal, relative to the root: they stay for the checks. */
  readonly keep: readonly string[];
  /**
   * The iteration's commit step has just left HEAD on `branchRef` (`refs/heads/...`) at `commit`,
   * with every `assume-unchanged` / `skip-worktree` bit of the index cleared (commitAll clears them
   * before `git add -A`), and nothing but bestof has run in the worktree since: neither HEAD nor the
   * bits are read again, and HEAD goes back on `branchRef` after the checks. @default HEAD and the
   * bits are read here.
   *
   * `worktreeIsCommit`: the commit step staged every change (`git add -A`) and left nothing out (no
   * file too large or holding a secret, the branch not moved under it), so every tracked path on
   * disk is as in `commit`, and the index holds `commit`'s tree: the `git reset --hard` that would
   * make them so is skipped (at 50,000 files it looks at every one of them).
   */
  readonly justCommitted?: { readonly branchRef: string; readonly worktreeIsCommit?: boolean } | undefined;
  readonly signal?: AbortSignal;
}

export interface ScoringTree {
  /** Frozen paths and paths outside `editable` the commit changed; all are put back as in base for the checks. */
  readonly tampered: readonly TamperedPath[];
  /** Untracked or ignored entries moved aside (relative paths; folders end in `/`). */
  readonly movedAside: readonly string[];
  /** HEAD was not at the commit (its branch had been moved here by someone else); it is back at the commit now. */
  readonly headMovedFrom?: string;
  /** The branch HEAD was on (`refs/heads/...`): HEAD is detached at the commit until putBackScoringTree puts it back on it. */
  readonly branch?: string;
  /**
   * Index, HEAD and `.git` link as the preparation left them (`worktreeStamp`), for
   * putBackScoringTree: when they are unchanged after the checks, it needs to look only at the files.
   */
  readonly stamp?: string;
}

/** Where a worktree's leftovers wait during the checks: beside the worktree, on the same file system, never inside it. */
export function asideDir(worktree: string): string {
  const root = resolve(worktree);
  return join(asideRoot(worktree), basename(root));
}

/**
 * The folder of the aside folders of the worktrees beside `worktree` (one per run). Each
 * candidate's own goes after its checks; this one stays while any candidate of the run may still
 * make its own in it, and goes, when empty, with the run (finish, or `bestof clean`).
 */
export function asideRoot(worktree: string): string {
  return join(dirname(resolve(worktree)), ASIDE_FOLDER);
}

export const ASIDE_FOLDER = '.bestof-aside';

function isKept(entry: string, keep: readonly string[]): boolean {
  const path = entry.endsWith('/') ? entry.slice(0, -1) : entry;
  return keep.some((k) => {
    const kept = k.replace(/\/+$/, '');
    return path === kept || path.startsWith(`${kept}/`);
  });
}

/** Untracked folders that hold a kept path: listed file by file, so that only the kept files stay. */
function holdsKept(entry: string, keep: readonly string[]): boolean {
  return entry.endsWith('/') && keep.some((k) => k.startsWith(entry));
}

/** The untracked and ignored entries that are not setup paths. */
async function leftovers(worktree: string, keep: readonly string[], signal?: AbortSignal): Promise<string[]> {
  const entries = await untrackedEntries(worktree, { signal });
  const expand = entries.filter((e) => holdsKept(e, keep));
  const inside = expand.length > 0 ? await untrackedEntries(worktree, { signal, expand }) : [];
  return [...entries.filter((e) => !holdsKept(e, keep)), ...inside].filter((e) => !isKept(e, keep));
}

async function move(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await cp(from, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    await removeTree(from);
  }
}

function inside(root: string, rel: string): string {
  const full = resolve(root, rel);
  if (!full.startsWith(resolve(root) + sep)) throw new Error(`refusing to move ${JSON.stringify(rel)}: not inside ${root}`);
  return full;
}

/** Moves every leftover to the aside folder, keeping its relative path. */
async function moveAside(worktree: string, keep: readonly string[], signal?: AbortSignal): Promise<string[]> {
  const entries = await leftovers(worktree, keep, signal);
  const aside = asideDir(worktree);
  let openedUp = false;
  for (const entry of entries) {
    try {
      await move(inside(worktree, entry), inside(aside, entry));
    } catch (error) {
      // In a folder the agent made read-only (`chmod 555 .`) nothing can be renamed until it is
      // opened up (../owned-tree.ts: the worktree's folders are this user's); once, then as it comes.
      const code = (error as NodeJS.ErrnoException).code;
      if (openedUp || (code !== 'EACCES' && code !== 'EPERM')) throw error;
      openedUp = true;
      await openUpTree(worktree);
      await move(inside(worktree, entry), inside(aside, entry));
    }
  }
  return entries;
}

/**
 * After `[setup]` ran again over the scoring tree (src/engine/scoring/score.ts): every untracked or ignored
 * entry but the setup paths is new, made by setup or by the candidate's code it ran (a `prepare`
 * script running one of the candidate's files could leave a `conftest.py` for the checks), since
 * the agent's leftovers are aside already. They are removed (not moved aside: one of the same name
 * there is the agent's, and must not be overwritten); the entries, as `git ls-files` names them.
 */
export async function removeNewLeftovers(worktree: string, keep: readonly string[], signal?: AbortSignal): Promise<string[]> {
  const entries = await leftovers(worktree, keep, signal);
  for (const entry of entries) await removeTree(inside(worktree, entry));
  return entries;
}

/** Files under `dir`, relative to it (folders that are empty count as entries ending in `/`). */
async function listAside(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = `${prefix}${d.name}`;
    if (d.isDirectory()) {
      const below = await listAside(dir, `${rel}/`);
      out.push(...(below.length > 0 ? below : [`${rel}/`]));
    } else out.push(rel);
  }
  return out;
}

/**
 * Moves the leftovers back. What the checks put at the same place gives way: the agent's file is
 * the one that stays. Also run before a preparation, in case bestof died during the checks.
 */
export async function putBackLeftovers(worktree: string): Promise<void> {
  const aside = asideDir(worktree);
  if (!existsSync(aside)) return;
  for (const rel of await listAside(aside)) {
    const target = inside(worktree, rel);
    await removeTree(target);
    await move(inside(aside, rel), target);
  }
  await removeTree(aside);
}

/**
 * Makes the worktree the scoring tree (see the module doc); undo with `putBackScoringTree`.
 * The commit step left HEAD at `commit`. If it is elsewhere now, someone moved the candidate's
 * branch after its agent ended (a rival's agent without the sandbox): the reset below puts the
 * branch back at `commit`, and `headMovedFrom` says where it had been moved to.
 */
export async function prepareScoringTree(worktree: string, opts: ScoringTreeOptions): Promise<ScoringTree> {
  const call = { signal: opts.signal };
  // HEAD's commit and the branch it is on (given back to it after the checks): as the commit step
  // left them, or read in one git process (../git/history/head-view.ts), each on its own when git cannot
  // give both (no commit on HEAD). A branch moved after the commit step is found by the put-back's
  // attachHead, which puts it back and says where it had gone.
  const view = opts.justCommitted ? { headRef: opts.justCommitted.branchRef, head: opts.commit } : await readHeadView(worktree, [], call);
  const [branch, head] = view ? [view.headRef, view.head] : await Promise.all([headBranchRef(worktree, call), resolveCommit(worktree, 'HEAD', call)]);
  // HEAD at the commit, as the commit step left it: resolving HEAD has shown that it names a commit
  // (or the commit step has just made it).
  const commit = head !== undefined && head === opts.commit ? head : await resolveCommit(worktree, opts.commit, call);
  if (commit === undefined) throw new Error(`prepareScoringTree: ${opts.commit} is not a commit in ${worktree}`);
  const headMovedFrom = head !== commit ? (head ?? 'no commit') : undefined;
  // Scored with HEAD on the commit itself, so that a branch moved meanwhile moves nothing here.
  await detachHead(worktree, commit, call);
  await putBackLeftovers(worktree);
  if (!opts.justCommitted) await clearIndexFlags(worktree, await flaggedIndexPaths(worktree, call), call);
  if (!opts.justCommitted?.worktreeIsCommit) await resetHard(worktree, commit, call);
  const movedAside = await moveAside(worktree, opts.keep, opts.signal);
  // HEAD is at the commit and the index holds it: detached and reset above. Every untracked and
  // ignored entry but the setup paths is aside now, under the frozen paths too, and restoring
  // them from base leaves nothing untracked: the restore's own clean of them would find nothing.
  const kept = withGitAttributes(opts.frozen);
  const frozen = await restoreFrozenPathsAtCommit(worktree, { base: opts.base, commit, frozen: kept, keep: [...opts.keep], untrackedAside: true, ...call });
  const editable = await findEditableViolations(worktree, { base: opts.base, commit, frozen: kept, editable: opts.editable, ...call });
  await restoreChangedPaths(worktree, opts.base, editable, opts.signal);
  // A changed .gitattributes (put back above: `kept` always holds them) may have left files
  // on disk converted otherwise than base's say while git sees them unchanged (a frozen fixture
  // with CRLF line endings, hashed as base's blob): every tracked file is written anew. O(repo),
  // only for such a commit.
  if (frozen.some((r) => isGitAttributes(r.path))) await rewriteTrackedFiles(worktree, call);
  // The kept paths by content, not by the index's stat data (./frozen.ts restoreKeptOffDisk).
  const offDisk = await restoreKeptOffDisk(worktree, { base: opts.base, commit, frozen: kept, recorded: frozen, ...call });
  const stamp = await worktreeStamp(worktree, call);
  return {
    tampered: [...frozen, ...offDisk, ...editable],
    movedAside,
    ...(branch ? { branch } : {}),
    ...(headMovedFrom ? { headMovedFrom } : {}),
    ...(stamp ? { stamp } : {}),
  };
}

/**
 * After the checks: exactly the candidate's commit again, what the checks left untracked or
 * ignored removed, the agent's leftovers back in place. Ignored output goes too (coverage, a
 * build folder): every ignored entry but the setup paths is the checks' by now (the agent's are
 * aside), and code a check runs may have copied into one what the next agent call must not read
 * (a credential file the checks could read and the agent cannot, sent out over the agent's
 * network). The next scoring would move it aside with the agent's own and back again, for good.
 * What the checks write inside a setup path stays (those are kept for the checks).
 * Takes no signal: a cancel must not interrupt it.
 *
 * With the preparation's `tree` (prepareScoringTree's result), only what the checks changed is
 * undone. When index, HEAD and `.git` link are as the preparation left them and nothing had to be
 * put back as in base (so the index still holds exactly the commit), one `git ls-files` (see
 * worktreeChanges) says what differs: nothing, and nothing is done; only untracked entries, and
 * only `git clean` runs; a tracked file changed or deleted, and `git reset --hard` runs too. When
 * the index was written meanwhile (a check that ran git), or without `tree`, the index's
 * `assume-unchanged`/`skip-worktree` bits are cleared first (`git reset --hard` leaves a file with
 * the skip-worktree bit as it is), then the reset and the clean run.
 */
export async function putBackScoringTree(
  worktree: string,
  opts: {
    readonly commit: string;
    readonly keep: readonly string[];
    readonly branch?: string | undefined;
    readonly tree?: Pick<ScoringTree, 'stamp' | 'tampered'> | undefined;
  },
): Promise<{ readonly branchMovedTo?: string }> {
  const stamp = opts.tree?.stamp;
  const indexUntouched = stamp !== undefined && (await worktreeStamp(worktree)) === stamp;
  const undo = indexUntouched && opts.tree?.tampered.length === 0 ? await whatChecksChanged(worktree, opts.keep) : { reset: true, clean: true };
  if (!indexUntouched) await clearIndexFlags(worktree, await flaggedIndexPaths(worktree));
  if (undo.reset) await resetHard(worktree, opts.commit);
  if (undo.clean) await cleanUntracked(worktree, { keep: [...opts.keep], ignored: true });
  await putBackLeftovers(worktree);
  const branchMovedTo = opts.branch ? await attachHead(worktree, opts.branch, opts.commit) : undefined;
  return branchMovedTo ? { branchMovedTo } : {};
}

/**
 * Which of the reset and the clean the put-back needs, when the index and HEAD are the commit's:
 * the reset for a tracked file changed or deleted, the clean for an untracked or ignored entry that
 * is not a setup path (a folder holding a setup path counts: the clean sorts it out).
 */
async function whatChecksChanged(worktree: string, keep: readonly string[]): Promise<{ readonly reset: boolean; readonly clean: boolean }> {
  let changes: Awaited<ReturnType<typeof worktreeChanges>>;
  try {
    changes = await worktreeChanges(worktree, { ignored: true });
  } catch {
    // git could not say (a `.git` link the checks broke?): the full put-back, whose errors are the real ones.
    return { reset: true, clean: true };
  }
  const reset = changes.some((c) => c.kind !== 'untracked');
  const clean = changes.some((c) => c.kind === 'untracked' && (!isKept(c.path, keep) || holdsKept(c.path, keep)));
  return { reset, clean: clean || reset };
}
