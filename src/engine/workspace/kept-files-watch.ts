/**
 * Base's kept files (what `[checks] frozen` and `protected` match in base, and its
 * `.gitattributes`) stay as they are while the checks run.
 *
 * The scoring tree puts them back as in base before the checks (../../checks/scoring-tree.ts), but
 * the checks run the candidate's code, and may write the worktree: a Rust `build.rs`, a module the
 * first test file imports, a test file of a runner that runs each file in a process of its own, or
 * a process one of them leaves behind can rewrite a frozen test on disk before the runner reads it,
 * and put it back before the check ends; so can `[setup]` run again before the checks (when an
 * agent changed what setup made), which runs the candidate's code too (a `prepare` script that runs
 * one of its files, a dependency its lockfile points at). So each of those files is fingerprinted
 * (type, mode, size, inode, mtime and ctime: ./setup-guard.ts; ctime cannot be set back) right
 * after the scoring tree is prepared, before setup and the checks, and compared right after the
 * checks. A file that changed, went or was replaced means the checks' points are not the
 * candidate's: the scoring counts no point and the candidate is flagged (it cannot win). The spec's
 * own checks are expected to leave these files alone: one that writes a frozen file (a fixture it
 * regenerates) or chmods one (ctime changes even when the mode stays, as it does when a cheater
 * writes a file and sets its mtime back) flags every candidate, and the warning says which file.
 *
 * Files the checks add under those patterns are not looked at (caches, test output), nor what is
 * inside a submodule there: only base's files, one lstat each.
 */
import type { TamperedPath } from '../../checks/frozen.js';
import { frozenPathspecs } from '../../checks/frozen.js';
import { pathsMatching } from '../../git/history/tree.js';
import { differences, fingerprint } from './setup-guard.js';
import { listFew } from '../words.js';

export interface KeptFilesWatch {
  /** Base's kept files the checks changed, removed or replaced since the watch began (sorted; [] when none). */
  changed(): Promise<TamperedPath[]>;
}

/**
 * Base's files under the kept patterns, by base and patterns: the same for every scoring of a run
 * (a commit's tree never changes), so read once per process. A few runs' worth at most.
 */
const keptFilesOfBase = new Map<string, Promise<string[]>>();
const REMEMBERED = 16;

function baseFiles(worktree: string, base: string, kept: readonly string[], signal?: AbortSignal): Promise<string[]> {
  const specs = frozenPathspecs(kept);
  const key = [base, ...specs].join('\0');
  let files = keptFilesOfBase.get(key);
  if (files === undefined) {
    files = pathsMatching(worktree, base, specs, { signal });
    // A failed read is not remembered: the next scoring asks again.
    files.catch(() => keptFilesOfBase.delete(key));
    if (keptFilesOfBase.size >= REMEMBERED) keptFilesOfBase.delete(keptFilesOfBase.keys().next().value as string);
    keptFilesOfBase.set(key, files);
  }
  return files;
}

/** Starts watching base's kept files in `worktree` (which holds them as in base: after prepareScoringTree). */
export async function watchKeptFiles(
  worktree: string,
  opts: { readonly base: string; readonly kept: readonly string[]; readonly signal?: AbortSignal },
): Promise<KeptFilesWatch> {
  const files = await baseFiles(worktree, opts.base, opts.kept, opts.signal);
  // The files themselves, never what is under a folder: a submodule's path is one, and its build
  // output is not a kept file (a file replaced by a folder differs by its type).
  const before = await fingerprint(worktree, files, { walk: false });
  return {
    async changed() {
      if (files.length === 0) return [];
      const after = await fingerprint(worktree, files, { walk: false });
      return differences(before, after).map((path): TamperedPath => ({ path, change: after.has(path) ? 'modified' : 'deleted', rule: 'frozen' }));
    },
  };
}

/** What the run says when the checks changed kept files. */
export function keptFilesChangedMessage(candidate: string, changed: readonly TamperedPath[]): string {
  // `.git` and `.git/...`: the worktree's own git files (../../git/guards/guard.ts watchWorktreeOwnFiles), not files of the spec's.
  const isGitFile = (p: TamperedPath): boolean => p.path === '.git' || p.path.startsWith('.git/');
  const inWords = (paths: readonly TamperedPath[]): string =>
    listFew(
      paths.map((p) => `${p.path} (${p.change})`),
      3,
    );
  const files = changed.filter((p) => !isGitFile(p));
  const gitFiles = changed.filter(isGitFile);
  const what = [
    ...(files.length > 0 ? [`changed files that the spec keeps as in base: ${inWords(files)}`] : []),
    ...(gitFiles.length > 0
      ? [
          `changed the worktree's own git files, which say which repository and which folder git works on: ${inWords(gitFiles)} (bestof put them back before its next git call there)`,
        ]
      : []),
  ].join(', and ');
  const hint = files.length > 0 ? " (If the spec's own checks write such a file, or chmod it, take it out of [checks] frozen.)" : '';
  return `while ${candidate}'s checks ran (or setup, run again before them), something ${what}. The checks run the candidate's code, which can rewrite a test before the runner reads it: this scoring counts no point, and ${candidate} cannot win.${hint}`;
}
