/**
 * What a check left to read for its report: the files it wrote into its report folder
 * (`$BESTOF_REPORT_DIR`, a fresh folder per check outside the worktree, in the scoring's HOME:
 * ../../engine/scoring/score.ts) and its stdout, both bounded so that a runaway runner cannot fill
 * bestof's memory. The folder is read as soon as the check ends, before anything of the candidate's
 * runs again, and removed.
 */
import { constants, type Dirent } from 'node:fs';
import { lstat, mkdir, open, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { ReportInput } from './types.js';

/**
 * What is kept of one report file, and of stdout, at most, plus one byte: a report past it reaches
 * the parser longer than it parses (./parse.ts MAX_REPORT_CHARS), which calls it unreadable, never a part read as the whole.
 */
export const MAX_REPORT_BYTES = 32 * 1024 * 1024 + 1;
/** Files read from a report folder, at most. */
const MAX_REPORT_FILES = 200;

/** Collects a check's stdout lines for a stdout report (TAP, go-json), up to MAX_REPORT_BYTES. */
export function stdoutCollector(): { readonly onLine: (line: string) => void; text(): string } {
  const lines: string[] = [];
  let bytes = 0;
  return {
    onLine(line) {
      if (bytes >= MAX_REPORT_BYTES) return;
      bytes += line.length + 1;
      lines.push(line);
    },
    text: () => lines.join('\n'),
  };
}

export async function makeReportDir(root: string, index: number): Promise<string> {
  const dir = join(root, `report-${index}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** Every regular file under `dir` (links are not followed: a check's link to a file of the user's is not read). */
export async function readReportDir(dir: string, stdout: string): Promise<ReportInput> {
  const files: Array<{ name: string; text: string }> = [];
  for (const path of await regularFilesUnder(dir)) {
    if (files.length >= MAX_REPORT_FILES) break;
    files.push({ name: relative(dir, path), text: await readCapped(path) });
  }
  return { stdout, files };
}

async function regularFilesUnder(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await regularFilesUnder(path)));
    else if (entry.isFile() && (await lstat(path)).isFile()) found.push(path);
  }
  return found;
}

async function readCapped(path: string): Promise<string> {
  // O_NOFOLLOW: a process the check left behind cannot swap the file for a link to one of the user's after the walk looked.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(Math.min((await handle.stat()).size, MAX_REPORT_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
