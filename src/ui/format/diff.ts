/** A unified diff (`git diff`) split into display lines and a file list with per-file counts. */
import { cleanLines } from './text.js';

export interface DiffFile {
  readonly path: string;
  readonly insertions: number;
  readonly deletions: number;
  /** Index in `lines` of the file's `diff --git` line. */
  readonly line: number;
}

export interface ParsedDiff {
  readonly lines: readonly string[];
  readonly files: readonly DiffFile[];
  readonly insertions: number;
  readonly deletions: number;
  /** True when the diff was longer than the UI keeps and its end was dropped. */
  readonly truncated: boolean;
}

/** Enough for any diff a person reads in a terminal; bigger ones are cut (the branch has it all). */
export const MAX_DIFF_LINES = 20_000;

export function parseDiff(text: string): ParsedDiff {
  const all = cleanLines(text);
  const truncated = all.length > MAX_DIFF_LINES;
  const lines = truncated ? all.slice(0, MAX_DIFF_LINES) : all;
  const files: DiffFile[] = [];
  let current: { path: string; insertions: number; deletions: number; line: number } | undefined;
  let inHeader = false;
  lines.forEach((line, index) => {
    if (line.startsWith('diff --git ')) {
      if (current) files.push(current);
      // "diff --git a/<path> b/<path>": the new path, good enough for display (renames show the new name).
      const match = / b\/(.+)$/.exec(line);
      current = { path: match?.[1] ?? line.slice('diff --git '.length), insertions: 0, deletions: 0, line: index };
      inHeader = true;
      return;
    }
    if (!current) return;
    if (line.startsWith('@@')) inHeader = false;
    else if (inHeader) {
      const renamed = /^rename to (.+)$/.exec(line);
      if (renamed?.[1]) current.path = renamed[1];
    } else if (line.startsWith('+')) current.insertions += 1;
    else if (line.startsWith('-')) current.deletions += 1;
  });
  if (current) files.push(current);
  return {
    lines,
    files,
    insertions: files.reduce((n, f) => n + f.insertions, 0),
    deletions: files.reduce((n, f) => n + f.deletions, 0),
    truncated,
  };
}

/** The file whose section holds `line` (the last file that starts at or before it). */
export function fileAt(diff: ParsedDiff, line: number): DiffFile | undefined {
  let found: DiffFile | undefined;
  for (const file of diff.files) {
    if (file.line > line) break;
    found = file;
  }
  return found ?? diff.files[0];
}
