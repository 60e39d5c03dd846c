/**
 * What bestof asks of a candidate's worktree before it commits or scores, in one git process
 * instead of two or three: git's top level for the folder (the link check, ../worktrees/worktree-link.ts),
 * the commit HEAD is at, the ref HEAD is on (reclaimHead in ./commit.ts, the scoring tree's
 * detach in ../../checks/scoring-tree.ts), and the commit of each ref asked for.
 *
 * `git rev-parse --show-toplevel HEAD^{commit} <ref>^{commit}... --symbolic-full-name HEAD --`
 * answers its arguments in order, one line each: the top level, the commits, the ref HEAD is a
 * symbolic ref to (`HEAD` itself when detached, as `git symbolic-ref` would say it is none), then
 * `--`. The answers are those of the separate calls they replace (`rev-parse --show-toplevel`,
 * `rev-parse --verify <rev>^{commit}`, `symbolic-ref HEAD`): the same lookups, the same peeling.
 * When git cannot answer all of it (HEAD on a branch with no commit yet, a ref that is missing, a
 * folder that is no worktree) it fails as a whole, and the callers ask each question on its own,
 * as they did before.
 */
import { runGit, splitLines, type GitCallOptions } from '../running/exec.js';
import { isFullObjectName } from '../running/object-name.js';

export interface HeadView {
  /** `git rev-parse --show-toplevel` in the folder. */
  readonly topLevel: string;
  /** HEAD's commit. */
  readonly head: string;
  /** The ref HEAD is a symbolic ref to (`refs/heads/...`); undefined when HEAD is detached. */
  readonly headRef: string | undefined;
  /** The commit of each ref asked for (every one names a commit, or there is no view). */
  readonly tips: ReadonlyMap<string, string>;
}

/** The view of `worktree` (see the module doc), with the commits of `refs` (full names); undefined when git cannot give all of it. */
export async function readHeadView(worktree: string, refs: readonly string[] = [], opts: GitCallOptions = {}): Promise<HeadView | undefined> {
  // Every ref starts with `refs/`, so none is taken for an option; `--` ends the list, so none is taken for a file.
  if (refs.some((ref) => !ref.startsWith('refs/'))) throw new Error(`readHeadView needs full ref names, got ${refs.join(', ')}`);
  const run = await runGit(
    worktree,
    ['rev-parse', '--show-toplevel', 'HEAD^{commit}', ...refs.map((ref) => `${ref}^{commit}`), '--symbolic-full-name', 'HEAD', '--'],
    opts,
  );
  if (run.code !== 0) return undefined;
  const lines = splitLines(run.stdout);
  // A top level with a line break in it (possible in a path) shows as one line too many: no view.
  if (lines.length !== refs.length + 4 || lines[lines.length - 1] !== '--') return undefined;
  const [topLevel, head, ...rest] = lines;
  const shas = rest.slice(0, refs.length);
  const symbolic = rest[refs.length];
  if (topLevel === undefined || head === undefined || symbolic === undefined || ![head, ...shas].every(isFullObjectName)) return undefined;
  return {
    topLevel,
    head,
    headRef: symbolic === 'HEAD' ? undefined : symbolic,
    tips: new Map(refs.map((ref, i) => [ref, shas[i]!])),
  };
}
