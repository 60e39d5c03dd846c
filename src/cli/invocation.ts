/**
 * How the user started bestof, as the words to type for the next command: init's closing line
 * says `bestof validate && bestof run` only to a user who has bestof on PATH. One who followed the
 * README without installing it (`npx --prefix /path/to/bestof bestof init`) gets that same form
 * back, and one who runs the project's own copy through npx gets `npx bestof`. npm tells a
 * program it started through npx: `npm_command=exec`, and `--prefix` as `npm_config_prefix`.
 */
import { realpathSync } from 'node:fs';
import type { Env } from '../env.js';
import { packageRoot } from '../package-root.js';

/** `bestof`, `npx bestof`, or `npx --prefix <this bestof's folder> bestof`. */
export function bestofInvocation(env: Env = process.env, root: string = packageRoot()): string {
  if (env.npm_command !== 'exec') return 'bestof';
  const prefix = env.npm_config_prefix;
  if (prefix !== undefined && prefix !== '' && sameFolder(prefix, root)) return `npx --prefix ${shellWord(prefix)} bestof`;
  return 'npx bestof';
}

/** A path as one shell word: as it is when it holds nothing a shell reads, else in single quotes. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}

function sameFolder(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
