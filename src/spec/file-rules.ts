/**
 * The rules that need the file system, applied at load time so that a spec naming a missing
 * prompt fails before anything is created. Which keys name files is said in the schema
 * (`.meta({ pathRule })`), not here: a new file key gets its rule by saying so where it is
 * declared. Nothing here creates or writes anything.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, posix, resolve, win32 } from 'node:path';
import type { SpecProblem } from './errors.js';
import type { PathSegment } from './key-path.js';
import { listSpecKeys, occurrencesOf } from './schema-walk.js';
import type { SpecKeyMeta } from './schema.js';
import type { SourceLocator } from './toml-positions.js';

/** Paths in a spec are relative to the spec file's folder (absolute ones stay as they are). */
export function resolveSpecPath(specDir: string, p: string): string {
  return resolve(specDir, p);
}

type PathRule = NonNullable<SpecKeyMeta['pathRule']>;

/** Every path the spec names under a key with a file rule, with its rule (a list's entries each count). */
export function pathsToCheck(data: unknown): Array<{ key: string; path: PathSegment[]; value: string; rule: PathRule }> {
  return listSpecKeys().flatMap((key) => {
    const rule = key.meta.pathRule;
    if (rule === undefined) return [];
    return occurrencesOf(key.pattern, data).flatMap(({ path, value }) => {
      const entries = Array.isArray(value) ? value.map((entry, index) => ({ path: [...path, index], value: entry as unknown })) : [{ path, value }];
      return entries.flatMap((entry) => (typeof entry.value === 'string' ? [{ key: key.name, path: entry.path, value: entry.value, rule }] : []));
    });
  });
}

export async function fileSystemProblems(data: unknown, specDir: string, locator: SourceLocator): Promise<SpecProblem[]> {
  const problems: SpecProblem[] = [];
  for (const { key, path, value, rule } of pathsToCheck(data)) {
    const message =
      rule === 'existing-file'
        ? await existingFileProblem(specDir, value)
        : rule === 'existing-folder'
          ? await existingFolderProblem(specDir, value)
          : repoRelativePathProblem(key, value, rule);
    if (message !== undefined) problems.push(locator.problem(path, message, 'value'));
  }
  return problems;
}

async function existingFileProblem(specDir: string, value: string): Promise<string | undefined> {
  if (value.trim() === '') return undefined;
  const absolute = resolveSpecPath(specDir, value);
  const kind = await pathKind(absolute);
  if (kind === 'file') return undefined;
  return kind === 'missing'
    ? `file not found: ${absolute} (paths in a spec are relative to the spec file's folder)`
    : `${absolute} is a folder, expected a file (paths in a spec are relative to the spec file's folder)`;
}

async function existingFolderProblem(specDir: string, value: string): Promise<string | undefined> {
  const absolute = resolveSpecPath(specDir, value);
  const kind = await pathKind(absolute);
  if (kind === 'folder') return undefined;
  return kind === 'missing'
    ? `folder not found: ${absolute} (paths in a spec are relative to the spec file's folder)`
    : `${absolute} is a file, expected a folder (paths in a spec are relative to the spec file's folder)`;
}

async function pathKind(absolute: string): Promise<'file' | 'folder' | 'missing'> {
  try {
    return (await stat(absolute)).isDirectory() ? 'folder' : 'file';
  } catch {
    return 'missing';
  }
}

/**
 * Keys that name a place in the repo (`setup.copy`, `prompt.output_file`, `vote.output_file`, the
 * `checks` globs): refuse paths that leave it, here, with the key's line, rather than when a
 * worktree or git meets them after the agents have run. A pathspec's leading `/` is the repo
 * root (src/checks/frozen.ts strips it) and its `:` magic is git's, so only `..` is refused there.
 */
function repoRelativePathProblem(key: string, entry: string, rule: Exclude<PathRule, 'existing-file' | 'existing-folder'>): string | undefined {
  const what = rule === 'repo-pathspec' ? 'git pathspec globs relative to the repo root' : 'paths relative to the repo root';
  const fix = `${key} takes ${what} and refuses paths that leave the repo: write it from the repo root`;
  if (rule === 'repo-pathspec' && entry.trim().startsWith(':')) return undefined;
  if (rule === 'inside-repo' && (isAbsolute(entry) || win32.isAbsolute(entry) || entry.startsWith('~'))) {
    return `"${entry}" is an absolute path: ${fix} (e.g. "${exampleFor(key)}")`;
  }
  const relative = rule === 'repo-pathspec' ? entry.trim().replace(/^\/+/, '') : entry;
  const normalized = posix.normalize(relative.replaceAll('\\', '/'));
  if (normalized === '..' || normalized.startsWith('../')) return `"${entry}" leaves the repo: ${fix}, without ".." that climbs out of it`;
  return undefined;
}

function exampleFor(key: string): string {
  return key.endsWith('output_file') ? 'notes/output.md' : '.env';
}
