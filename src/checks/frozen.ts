/**
 * Frozen paths: the files a candidate must not change (tests, check scripts, fixtures).
 *
 * Checks run in the candidate's own worktree, but before they run every frozen path is put back
 * exactly as it is in `base` (modified, deleted, added, symlinked files alike) and whatever the
 * candidate did to them is reported as tampering. After the checks the worktree returns to the
 * candidate's commit. The cost is O(changed frozen files): a tree diff plus a checkout of only
 * the paths that differ, never a second full checkout.
 *
 * Patterns are git pathspecs with `glob` magic, relative to the worktree root:
 * - `test/**` — everything under test/ (and, see below, `test` itself);
 * - `test/*.ts` — `*` does not cross `/`: only files directly in test/;
 * - `**\/*.snap` — at any depth;
 * - `scripts/check.sh` — that file; `test` or `test/` (no wildcard) — that path and everything
 *   under it, like git's default pathspecs (it does not match `tests/` or `test.ts`);
 * - a pattern that already starts with `:` is passed to git unchanged (your own pathspec magic).
 * Leading `./` or `/` is ignored.
 *
 * Besides the patterns themselves, the folders leading to a frozen path are watched: if the
 * candidate replaces `scripts/` by a symlink or a file, that is tampering too (`added`), since
 * the checks would otherwise run through the link.
 */
import { resolve, sep } from 'node:path';
import { changedPaths, type PathChange } from '../git/history/diff.js';
import { indexEntriesOffDisk } from '../git/guards/content-check.js';
import { checkoutPathsFrom, cleanUntracked, globPathspec, literalPathspec, removeFromIndex, resetHard } from '../git/worktrees/paths.js';
import { resolveCommit } from '../git/running/repo.js';
import { pathsMatching } from '../git/history/tree.js';
import { removeTree } from '../owned-tree.js';

/** What a candidate's commit did to a frozen path, compared with base. */
export type TamperChange = 'modified' | 'added' | 'deleted' | 'type_changed';

/**
 * Which rule a changed path broke: `frozen` (`[checks] frozen`, or the shared git dir: such a
 * candidate cannot win) or `editable` (outside `[checks] editable`: reverted, may still win).
 */
export type TamperRule = 'frozen' | 'editable';

/** A path the candidate must not have changed, and did (reported in `candidate.tampered` events). */
export interface TamperedPath {
  /** Path relative to the worktree root (`.git/...` for the shared git dir). */
  readonly path: string;
  /** What the candidate's commit did to the path, compared with base. */
  readonly change: TamperChange;
  /** Which rule the change broke. bestof always sets it; events of older runs lack it. @default 'frozen' */
  readonly rule?: TamperRule;
  /**
   * Why the path is kept when that is not plain from its name: package.json, kept whole because its
   * `"nyc"` key changed (./runner-defaults.ts). @default none
   */
  readonly note?: string;
}

export interface FrozenOptions {
  /** The spec author's revision: frozen paths must look exactly like this. */
  base: string;
  /** The candidate's committed work. */
  commit: string;
  /** Frozen patterns from the spec (see the module comment). */
  frozen: readonly string[];
  signal?: AbortSignal;
}

const CHANGE_OF_STATUS: Record<PathChange['status'], TamperChange> = { M: 'modified', A: 'added', D: 'deleted', T: 'type_changed' };

/** Absolute path of a git-reported relative path; refuses anything that would leave the worktree. */
function insideWorktree(worktree: string, path: string): string {
  const root = resolve(worktree);
  const full = resolve(root, path);
  if (full === root || !full.startsWith(root + sep)) throw new Error(`refusing to touch ${JSON.stringify(path)}: not inside ${root}`);
  return full;
}

function normalizePattern(pattern: string): string {
  const p = pattern.trim();
  if (p.startsWith(':')) return p;
  return p.replace(/^(\.\/)+/, '').replace(/^\/+/, '');
}

/** The git pathspecs (`:(top,glob)...`) for the spec's frozen patterns; empty patterns are dropped. */
export function frozenPathspecs(frozen: readonly string[]): string[] {
  const specs: string[] = [];
  for (const raw of frozen) {
    const p = normalizePattern(raw);
    if (p === '') continue;
    specs.push(p.startsWith(':') ? p : globPathspec(p === '.' ? '' : p));
  }
  return specs;
}

/**
 * The patterns kept as in `base` for the checks and the merge: `[checks] frozen` and `[checks]
 * protected`, which differ only in what the plan asks of them (a frozen pattern must match a file
 * of base; a protected one, such as `**\/conftest.py`, is there to keep candidates from adding one).
 */
export function keptAsInBase(checks: { readonly frozen: readonly string[]; readonly protected: readonly string[] }): string[] {
  return withGitAttributes([...checks.frozen, ...checks.protected]);
}

/** The patterns and GIT_ATTRIBUTES (once): what the scoring tree keeps as in base, whoever calls it. */
export function withGitAttributes(patterns: readonly string[]): string[] {
  return [...new Set([...patterns, GIT_ATTRIBUTES])];
}

/**
 * `.gitattributes` files, kept as in base in every spec. git reads them when it writes a file to
 * disk and when it hashes one (line endings, `working-tree-encoding`, filters, `ident`): a candidate
 * that added `tests/expected.txt text eol=crlf` and wrote that frozen fixture with CRLF kept it so
 * on disk while git hashed it as base's blob, so nothing under the frozen paths looked changed, and
 * a program whose bug was its CRLF output passed a byte-exact check (tried). Kept as in base, a
 * changed one flags the candidate (it cannot win), and the scoring tree writes every tracked file
 * anew as base's attributes say (scoring-tree.ts), so the checks read what the user's checkout
 * would hold.
 */
export const GIT_ATTRIBUTES = '**/.gitattributes';

/** A `.gitattributes` file, at the root or in a folder. */
export function isGitAttributes(path: string): boolean {
  return path === '.gitattributes' || path.endsWith('/.gitattributes');
}

/**
 * The `frozen` / `editable` globs that match at least one file of `commit`, as git matches them:
 * what the plan refuses a glob for (it protects nothing) and what `bestof init` offers.
 */
export async function globsMatching(repo: string, commit: string, globs: readonly string[]): Promise<Set<string>> {
  const matching = await Promise.all(
    globs.map(async (glob) => {
      const [pathspec] = frozenPathspecs([glob]);
      return pathspec !== undefined && (await pathsMatching(repo, commit, [pathspec])).length > 0;
    }),
  );
  return new Set(globs.filter((_, i) => matching[i]));
}

/** Folders leading to what a pattern freezes, up to its first wildcard: `a/b/*.ts` -> `a`, `a/b`. */
function leadingDirs(frozen: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const raw of frozen) {
    const p = normalizePattern(raw);
    if (p === '' || p.startsWith(':')) continue;
    const parts = p.split('/').filter((s) => s !== '');
    for (let i = 0; i < parts.length - 1; i++) {
      const part = parts[i] ?? '';
      if (/[*?[\\]/.test(part)) break;
      dirs.add(parts.slice(0, i + 1).join('/'));
    }
  }
  return [...dirs];
}

async function tamperedUnder(worktree: string, opts: FrozenOptions, pathspecs: string[], rule: TamperRule = 'frozen'): Promise<TamperedPath[]> {
  const changes = await changedPaths(worktree, opts.base, opts.commit, pathspecs, { signal: opts.signal });
  return changes.map(({ path, status }) => ({ path, change: CHANGE_OF_STATUS[status], rule }));
}

const byPath = (a: TamperedPath, b: TamperedPath): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Exclusion pathspecs for the spec's `editable` patterns (same syntax as frozen patterns). */
export function excludePathspecs(patterns: readonly string[]): string[] {
  return frozenPathspecs(patterns).map((spec) => (spec.startsWith(':(') ? `:(exclude,${spec.slice(2)}` : `:(exclude)${spec.slice(1)}`));
}

/**
 * What `commit` changed outside `[checks] editable` compared with `base`, frozen paths left out
 * (they are reported as frozen). An empty `editable` list allows everything: no records.
 */
export async function findEditableViolations(worktree: string, opts: FrozenOptions & { readonly editable: readonly string[] }): Promise<TamperedPath[]> {
  const allowed = excludePathspecs(opts.editable);
  if (allowed.length === 0) return [];
  const outside = await tamperedUnder(worktree, opts, [':/', ...allowed, ...excludePathspecs(opts.frozen)], 'editable');
  return outside.sort(byPath);
}

/**
 * Puts these changed paths back exactly as in `base` (index and disk): added ones are removed,
 * the others checked out from base. Only the differing paths: O(changed), and a symlink in place
 * of a file (or of a leading folder) is replaced, never written through.
 */
export async function restoreChangedPaths(worktree: string, base: string, records: readonly TamperedPath[], signal?: AbortSignal): Promise<void> {
  const call = { signal };
  const added = records.filter((r) => r.change === 'added').map((r) => r.path);
  // Files (or symlinks standing in for frozen folders, or nested repositories) that base does not
  // have: out of the index, then off the disk (`rm` removes a symlink itself, never its target).
  // First, so that a folder restored below can take the place of a file of the same name.
  await removeFromIndex(worktree, added, call);
  for (const path of added) await removeTree(insideWorktree(worktree, path));
  await checkoutPathsFrom(
    worktree,
    base,
    records.filter((r) => r.change !== 'added').map((r) => r.path),
    call,
  );
}

/** What `commit` changed under the frozen paths compared with `base` (sorted by path). */
export async function findTampering(worktree: string, opts: FrozenOptions): Promise<TamperedPath[]> {
  const specs = frozenPathspecs(opts.frozen);
  // Guard: an empty pathspec list would mean "every file".
  if (specs.length === 0) return [];
  const records = await tamperedUnder(worktree, opts, specs);
  const dirs = leadingDirs(opts.frozen);
  if (dirs.length > 0) {
    // A frozen folder replaced by a file or symlink shows up as a change at the folder's own path.
    const wanted = new Set(dirs);
    const seen = new Set(records.map((r) => r.path));
    const around = await tamperedUnder(worktree, opts, dirs.map(literalPathspec));
    for (const r of around) if (wanted.has(r.path) && !seen.has(r.path)) records.push(r);
  }
  return records.sort(byPath);
}

export interface RestoreOptions extends FrozenOptions {
  /**
   * Untracked files that must survive (e.g. copied in by `[setup] copy`): never removed, even
   * under a frozen path. Literal paths relative to the worktree root.
   */
  keep?: readonly string[];
  /**
   * The caller has moved every untracked and ignored entry but `keep` out of the worktree
   * (../checks/scoring-tree.ts moveAside): there is nothing for the clean under the frozen paths
   * to remove, and it does not run. @default false
   */
  untrackedAside?: boolean;
}

/**
 * Makes every frozen path identical to `base` in the worktree and returns what the candidate had
 * changed. Precondition: the worktree is clean at `commit` (HEAD = commit, nothing uncommitted).
 * Also removes untracked and ignored files under frozen paths (a gitignored `test/x.test.ts`
 * would otherwise still be picked up by a test runner). Undo with `putBackCandidateFiles`.
 */
export async function restoreFrozenPaths(worktree: string, opts: RestoreOptions): Promise<TamperedPath[]> {
  const specs = frozenPathspecs(opts.frozen);
  if (specs.length === 0) return [];
  const call = { signal: opts.signal };
  const [head, commit] = await Promise.all([resolveCommit(worktree, 'HEAD', call), resolveCommit(worktree, opts.commit, call)]);
  if (commit === undefined) throw new Error(`restoreFrozenPaths: ${opts.commit} is not a commit in ${worktree}`);
  if (head !== commit) {
    throw new Error(`restoreFrozenPaths: ${worktree} is at ${head ?? 'no commit'}, not at the candidate's commit ${commit}`);
  }
  return restoreFrozenPathsAtCommit(worktree, { ...opts, commit });
}

/**
 * restoreFrozenPaths for a caller that has itself just put HEAD, the index and the files at
 * `opts.commit` (a commit id): prepareScoringTree detaches HEAD there and resets to it. The same
 * restore, without asking git again where HEAD is.
 */
export async function restoreFrozenPathsAtCommit(worktree: string, opts: RestoreOptions): Promise<TamperedPath[]> {
  const specs = frozenPathspecs(opts.frozen);
  if (specs.length === 0) return [];
  const records = await findTampering(worktree, opts);
  await restoreChangedPaths(worktree, opts.base, records, opts.signal);
  // Untracked and ignored leftovers under frozen paths, nested repositories there included.
  if (!opts.untrackedAside) await cleanUntracked(worktree, { pathspecs: specs, keep: opts.keep ?? [], ignored: true, nestedRepos: true, signal: opts.signal });
  return records;
}

/**
 * After the restore of the kept paths (the frozen ones, as base has them in the index now): any
 * of their files on disk that is not the blob the index names, compared by content
 * (../git/guards/content-check.ts), is written anew from base and returned as tampering. git trusts an
 * index entry's stat data, so an index that names base's blob over a gutted file on disk hides
 * it from the tree diff and the reset above: only the content shows it. Within the sandbox no
 * agent writes the index (its git has a scratch index: ../git/guards/agent-git-scratch.ts); without it,
 * this is what finds such an index. Paths already recorded are not recorded twice.
 */
export async function restoreKeptOffDisk(worktree: string, opts: FrozenOptions & { readonly recorded: readonly TamperedPath[] }): Promise<TamperedPath[]> {
  const specs = frozenPathspecs(opts.frozen);
  if (specs.length === 0) return [];
  const offDisk = await indexEntriesOffDisk(worktree, specs, { signal: opts.signal });
  if (offDisk.length === 0) return [];
  // Off the disk first: git would take the file's (forged) stat data as "unchanged" and write nothing.
  for (const path of offDisk) await removeTree(insideWorktree(worktree, path));
  await checkoutPathsFrom(worktree, opts.base, offDisk, { signal: opts.signal });
  const seen = new Set(opts.recorded.map((r) => r.path));
  return offDisk.filter((path) => !seen.has(path)).map((path) => ({ path, change: 'modified' as const, rule: 'frozen' as const }));
}

export interface PutBackOptions {
  /** The candidate's commit to return to. */
  commit: string;
  /** Untracked files to leave alone (setup files such as `.env`), literal paths relative to the root. */
  keep?: readonly string[];
  signal?: AbortSignal;
}

/**
 * After the checks: back to exactly the candidate's commit (`git reset --hard`), and removes the
 * untracked files the checks created, except `keep`. Ignored files (node_modules, build output,
 * coverage) are left alone.
 */
export async function putBackCandidateFiles(worktree: string, opts: PutBackOptions): Promise<void> {
  await resetHard(worktree, opts.commit, { signal: opts.signal });
  await cleanUntracked(worktree, { keep: opts.keep ?? [], signal: opts.signal });
}
