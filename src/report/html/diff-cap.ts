/**
 * The size caps that keep a report small: a candidate's diff over its limit is cut (at a file's
 * start when one is near, else at a line's end) with a note that says what was left out and how
 * to see all of it. The limit shrinks with the number of candidates, so that 64 candidates still
 * make a file of a few MB.
 */

/** No diff is shown longer than this (characters, about bytes for source code). */
export const DIFF_LIMIT = 256 * 1024;
/** What every candidate's diff together may take. */
export const DIFFS_BUDGET = 3 * 1024 * 1024;
/** A check's output tail, a review: texts the record already bounds, bounded again here. */
export const TEXT_LIMIT = 16 * 1024;

/** The limit of each diff of a run of `candidates` candidates. */
export function diffLimitFor(candidates: number): number {
  return Math.min(DIFF_LIMIT, Math.floor(DIFFS_BUDGET / Math.max(1, candidates)));
}

export interface CappedDiff {
  readonly text: string;
  /** Set when the diff was cut: what the note says. */
  readonly truncated?: { readonly shownChars: number; readonly totalChars: number; readonly shownFiles: number; readonly totalFiles: number };
}

const fileCount = (text: string): number => (text.startsWith('diff --git ') ? 1 : 0) + (text.match(/\ndiff --git /g)?.length ?? 0);

export function capDiff(text: string, limit: number): CappedDiff {
  if (text.length <= limit) return { text };
  const fileStart = text.lastIndexOf('\ndiff --git ', limit);
  const lineEnd = text.lastIndexOf('\n', limit);
  // A file boundary in the last half keeps every shown file whole; else as many lines as fit.
  const cut = fileStart > limit / 2 ? fileStart + 1 : lineEnd > 0 ? lineEnd + 1 : limit;
  const shown = text.slice(0, cut);
  return { text: shown, truncated: { shownChars: shown.length, totalChars: text.length, shownFiles: fileCount(shown), totalFiles: fileCount(text) } };
}

/** The last `limit` characters, from a line's start: a check's output is read from its end. */
export function tailOf(text: string, limit: number = TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  const from = text.indexOf('\n', text.length - limit);
  return `[… ${text.length - limit} earlier characters not shown]\n${text.slice(from < 0 ? text.length - limit : from + 1)}`;
}

/** The first `limit` characters of a text read from its start (a review). */
export function headOf(text: string, limit: number = TEXT_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n[… ${text.length - limit} more characters not shown]`;
}
