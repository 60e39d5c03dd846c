/** The root of the git work tree a folder is in, for finding a spec from a subfolder. */
import { runGit } from './exec.js';

/** `git rev-parse --show-toplevel` (symlinks resolved), or undefined outside a work tree (or inside .git). */
export async function workTreeTopLevel(cwd: string): Promise<string | undefined> {
  const top = await runGit(cwd, ['rev-parse', '--show-toplevel']);
  const root = top.stdout.trim();
  return top.code === 0 && root !== '' ? root : undefined;
}
