/**
 * Byte-for-byte snapshots of folders, for the trust tier: every file under a folder by its
 * relative path, with its mode and a sha256 of its content (a symbolic link by its target), so
 * that "nothing changed" is a plain equality and a failure names the paths that did.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Relative path -> "mode sha256" (files), "link -> target" (symbolic links), "dir" (empty folders). */
export type Snapshot = Readonly<Record<string, string>>;

export interface SnapshotOptions {
  /** Top-level or nested relative paths left out (with everything under them), e.g. `.git`. */
  readonly skip?: readonly string[];
}

export function snapshotFolder(root: string, options: SnapshotOptions = {}): Snapshot {
  const out: Record<string, string> = {};
  if (!existsSync(root)) return out;
  const skip = new Set(options.skip ?? []);
  const walk = (dir: string, rel: string): void => {
    const names = readdirSync(dir).sort();
    if (names.length === 0 && rel !== '') out[rel] = 'dir';
    for (const name of names) {
      const relPath = rel === '' ? name : `${rel}/${name}`;
      if (skip.has(relPath)) continue;
      const full = join(dir, name);
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) out[relPath] = `link -> ${readlinkSync(full)}`;
      else if (stat.isDirectory()) walk(full, relPath);
      else out[relPath] = `${(stat.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`;
    }
  };
  const stat = lstatSync(root);
  if (stat.isDirectory()) walk(root, '');
  else out['.'] = `${(stat.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(root)).digest('hex')}`;
  return out;
}

/** The paths that differ, one line each ("+ added", "- removed", "~ changed"): empty when equal. */
export function snapshotDiff(before: Snapshot, after: Snapshot): string[] {
  const lines: string[] = [];
  for (const path of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!(path in before)) lines.push(`+ ${path}`);
    else if (!(path in after)) lines.push(`- ${path}`);
    else if (before[path] !== after[path]) lines.push(`~ ${path}`);
  }
  return lines.sort();
}
