/** Size and text of a candidate's change. */
import { gitOut, splitNul, type GitCallOptions } from './exec.js';

export interface DiffStat {
  /** Changed files; a rename counts once. */
  readonly files: number;
  readonly insertions: number;
  readonly deletions: number;
  /** Changed paths (for a rename, the new path). */
  readonly paths: string[];
}

/** `git diff --numstat -z -M <from> <to>`; binary files count as 0 insertions / 0 deletions. */
export async function diffStat(repo: string, from: string, to: string, opts: GitCallOptions = {}): Promise<DiffStat> {
  const out = await gitOut(repo, ['diff', '--numstat', '-z', '-M', '--no-ext-diff', from, to, '--'], opts);
  const parts = splitNul(out);
  let insertions = 0;
  let deletions = 0;
  const paths: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    // "<added>\t<deleted>\t<path>" or, for a rename, "<added>\t<deleted>\t" then old and new path as two fields.
    const entry = parts[i] ?? '';
    const t1 = entry.indexOf('\t');
    const t2 = entry.indexOf('\t', t1 + 1);
    const added = entry.slice(0, t1);
    const deleted = entry.slice(t1 + 1, t2);
    let path = entry.slice(t2 + 1);
    if (path === '') {
      path = parts[i + 2] ?? '';
      i += 2;
    }
    insertions += added === '-' ? 0 : Number.parseInt(added, 10) || 0;
    deletions += deleted === '-' ? 0 : Number.parseInt(deleted, 10) || 0;
    paths.push(path);
  }
  return { files: paths.length, insertions, deletions, paths };
}

/** The unified diff between two revisions (no colour, no external diff driver). */
export async function diffText(repo: string, from: string, to: string, opts: GitCallOptions = {}): Promise<string> {
  return gitOut(repo, ['diff', '--no-color', '--no-ext-diff', from, to, '--'], opts);
}
