/** Where `[setup] copy` and `[setup] link` entries point in the repo: inside it, never out of it. */
import { readdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { err, ok, type Result } from '../../result.js';

/**
 * An entry is a path relative to the repo root (a file or a folder), or a pattern with `*` in
 * its last segment (`config/*.local.json`). Anything that resolves outside the repo, through
 * `..`, an absolute path or a symbolic link, is refused. `key` names the spec key in messages.
 */
export async function expandCopyPattern(repoRoot: string, pattern: string, key: 'setup.copy' | 'setup.link' = 'setup.copy'): Promise<Result<string[]>> {
  const entry = pattern.replace(/^\/+/, '').replace(/\/+$/, '');
  const leaves = (path: string): boolean => {
    const rel = relative(repoRoot, resolve(repoRoot, path));
    return rel.startsWith('..') || isAbsolute(rel);
  };
  const verb = key === 'setup.copy' ? 'copy' : 'link';
  if (isAbsolute(pattern) || leaves(entry)) return err(`${key}: "${pattern}" leaves the repo; ${verb} only paths inside ${repoRoot}`);
  if (entry === '' || entry === '.') return err(`${key}: "${pattern}" is the whole repo; ${verb} only paths inside ${repoRoot}`);
  let candidates: string[];
  if (basename(entry).includes('*')) {
    const folder = dirname(entry);
    const regex = new RegExp(`^${basename(entry).split('*').map(escapeRegExp).join('[^/]*')}$`);
    try {
      candidates = (await readdir(join(repoRoot, folder))).filter((name) => regex.test(name)).map((name) => (folder === '.' ? name : join(folder, name)));
    } catch {
      candidates = [];
    }
  } else {
    candidates = [entry];
  }
  const paths: string[] = [];
  const realRoot = await realpath(repoRoot);
  for (const path of candidates) {
    let real: string;
    try {
      real = await realpath(join(repoRoot, path));
    } catch {
      continue; // does not exist
    }
    const rel = relative(realRoot, real);
    if (rel.startsWith('..') || isAbsolute(rel)) return err(`${key}: "${path}" is a link that leaves the repo; refused`);
    paths.push(path);
  }
  return ok(paths);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}
