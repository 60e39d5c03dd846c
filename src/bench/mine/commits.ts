/**
 * The walk of `bestof bench mine`: the repo's non-merge commits, newest first, and each commit's
 * files sorted into tests, source, docs and files the checks keep as in base. Sorting goes through
 * git's own pathspecs (src/checks/frozen.ts frozenPathspecs), the same matching the run's scoring
 * uses, so a file mining calls a test is a file the run freezes.
 */
import { frozenPathspecs } from '../../checks/frozen.js';
import { changedFiles, nonMergeCommits, numstat, patchOf } from '../../git/history/mining.js';
import type { CommitFiles, FixSize, MinedCommit } from './types.js';

/** Test files by the usual names of pytest, go test, node --test, vitest and jest, besides the spec's frozen paths. */
export const DEFAULT_TEST_PATTERNS: readonly string[] = [
  '**/test_*.py',
  '**/*_test.py',
  '**/tests/**',
  '**/test/**',
  '**/testdata/**',
  '**/*_test.go',
  '**/*.test.*',
  '**/*.spec.*',
  '**/__tests__/**',
];

/** Files that document or configure the project's hosting rather than its code. */
export const DOC_PATTERNS: readonly string[] = [
  '**/*.md',
  '**/*.rst',
  '**/*.txt',
  '**/*.adoc',
  'docs/**',
  'doc/**',
  '**/LICENSE*',
  '**/AUTHORS*',
  '**/CHANGELOG*',
  '**/CHANGES*',
  '.github/**',
  '.gitignore',
  '**/.gitignore',
  '.travis.yml',
  'appveyor.yml',
  '.readthedocs.*',
];

export interface WalkOptions {
  /** Look at the last this many non-merge commits. */
  readonly commits: number;
  /** Only commits after this date (git's `--since`) or after this revision (`<rev>..HEAD`). */
  readonly since?: string;
  /** Only commits that touch these paths (globs). */
  readonly paths?: readonly string[];
  readonly signal?: AbortSignal;
}

/** Non-merge commits with exactly one parent, newest first (the root commit has no parent to be a task's base). */
export async function walkCommits(root: string, options: WalkOptions): Promise<MinedCommit[]> {
  const paths = options.paths !== undefined && options.paths.length > 0 ? frozenPathspecs(options.paths) : [];
  const logged = await nonMergeCommits(root, { maxCount: options.commits, since: options.since, pathspecs: paths, signal: options.signal });
  return logged.flatMap((c) =>
    c.parents[0] === undefined ? [] : [{ sha: c.sha, parent: c.parents[0], date: c.date, subject: c.subject, message: c.message }],
  );
}

export interface SortRules {
  /** Test files: the spec's frozen paths and DEFAULT_TEST_PATTERNS. */
  readonly tests: readonly string[];
  /** Kept as in base by the checks (frozen and protected): a fix may not need one of them. */
  readonly kept: readonly string[];
  /** `[checks] editable`, when the spec has it: the fix must stay inside. */
  readonly editable: readonly string[];
}

/** The commit's changed files, sorted. */
export async function sortFiles(root: string, commit: MinedCommit, rules: SortRules, signal?: AbortSignal): Promise<CommitFiles> {
  const changed = await diffNames(root, commit, [], signal);
  const deleted = new Set(await diffNames(root, commit, [], signal, 'D'));
  const [tests, kept, docs, editable] = await Promise.all([
    diffNames(root, commit, frozenPathspecs(rules.tests), signal),
    rules.kept.length > 0 ? diffNames(root, commit, frozenPathspecs(rules.kept), signal) : [],
    diffNames(root, commit, frozenPathspecs(DOC_PATTERNS), signal),
    rules.editable.length > 0 ? diffNames(root, commit, frozenPathspecs(rules.editable), signal) : undefined,
  ]);
  const testSet = new Set(tests);
  const docSet = new Set(docs.filter((f) => !testSet.has(f)));
  const keptSet = new Set(kept.filter((f) => !testSet.has(f)));
  const inEditable = editable === undefined ? undefined : new Set(editable);
  const source = changed.filter((f) => !testSet.has(f) && !docSet.has(f) && !keptSet.has(f));
  const outside = inEditable === undefined ? [] : source.filter((f) => !inEditable.has(f));
  return {
    tests: tests.filter((f) => !deleted.has(f)),
    deletedTests: tests.filter((f) => deleted.has(f)),
    source: source.filter((f) => !outside.includes(f)),
    docs: [...docSet],
    protectedChanged: [...keptSet, ...outside],
  };
}

function diffNames(root: string, commit: MinedCommit, pathspecs: readonly string[], signal?: AbortSignal, filter?: string): Promise<string[]> {
  return changedFiles(root, commit.parent, commit.sha, pathspecs, { signal, ...(filter ? { filter } : {}) });
}

/** Lines added and removed in these files, and how many files. */
export async function fixSize(root: string, commit: MinedCommit, files: readonly string[], signal?: AbortSignal): Promise<FixSize> {
  if (files.length === 0) return { lines: 0, files: 0 };
  const out = await numstat(root, commit.parent, commit.sha, files, signal);
  let lines = 0;
  for (const line of out.split('\n')) {
    const [added, removed] = line.split('\t');
    // A binary file shows "-": counted as one line, so it is never free.
    lines += (added === '-' ? 1 : Number(added) || 0) + (removed === '-' ? 0 : Number(removed) || 0);
  }
  return { lines, files: files.length };
}

/** The fix as a patch `git apply` takes at the parent: the commit's diff outside the tests. */
export async function sourcePatch(root: string, commit: MinedCommit, files: readonly string[], signal?: AbortSignal): Promise<string> {
  return patchOf(root, commit.parent, commit.sha, files, signal);
}

/** `<sha8>-<the subject in a few words>`, at most 40 characters (a bench task id). */
export function taskId(commit: MinedCommit): string {
  const slug = commit.subject
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 31)
    .replace(/-+$/, '');
  return slug === '' ? commit.sha.slice(0, 8) : `${commit.sha.slice(0, 8)}-${slug}`;
}
