/**
 * The mining's journal (`<out>/.mine/journal.jsonl`): one line per commit looked at, appended and
 * flushed to disk (fsync) as soon as its verdict is known, so that a mining stopped any way
 * (Ctrl-C, kill -9, a crash) goes on where it was: a commit in the journal is never validated
 * again. Its first line says what the verdicts depend on (the check, its command, `--max-diff`);
 * a journal made with other settings is refused rather than mixed with this one's. A last line cut
 * short by a kill is dropped (its commit is validated again).
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommitVerdict } from './types.js';

export interface JournalHeader {
  readonly journal: 'bestof-bench-mine';
  readonly version: 1;
  /** What the verdicts depend on: the repo's HEAD does not matter (a commit's verdict is its own). */
  readonly settings: Readonly<Record<string, unknown>>;
}

export type JournalOpened =
  | { readonly ok: true; readonly verdicts: Map<string, CommitVerdict>; readonly append: (verdict: CommitVerdict) => void; readonly close: () => void }
  | { readonly ok: false; readonly error: string };

export function openJournal(path: string, settings: Readonly<Record<string, unknown>>): JournalOpened {
  const header: JournalHeader = { journal: 'bestof-bench-mine', version: 1, settings };
  const verdicts = new Map<string, CommitVerdict>();
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  if (text.trim() !== '') {
    const lines = text.split('\n');
    const first = parseLine(lines[0] ?? '') as JournalHeader | undefined;
    if (first?.journal !== 'bestof-bench-mine') return { ok: false, error: `${path} is not a journal of bestof bench mine` };
    if (JSON.stringify(first.settings) !== JSON.stringify(settings)) {
      return {
        ok: false,
        error: `${path} holds a mining with other settings (${JSON.stringify(first.settings)}); mine into another --out, or remove that folder to start again`,
      };
    }
    for (const line of lines.slice(1)) {
      const verdict = parseLine(line) as CommitVerdict | undefined;
      if (verdict?.sha) verdicts.set(verdict.sha, verdict);
    }
  } else {
    mkdirSync(dirname(path), { recursive: true });
  }
  const fd = openSync(path, 'a');
  const write = (value: unknown) => {
    writeSync(fd, `${JSON.stringify(value)}\n`);
    fsyncSync(fd);
  };
  if (text.trim() === '') write(header);
  // A line a kill cut short ends without a newline: the next verdict starts on a line of its own.
  else if (!text.endsWith('\n')) writeSync(fd, '\n');
  return {
    ok: true,
    verdicts,
    append: (verdict) => write(verdict),
    close: () => closeSync(fd),
  };
}

function parseLine(line: string): unknown {
  if (line.trim() === '') return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined; // a line cut short by a kill
  }
}
