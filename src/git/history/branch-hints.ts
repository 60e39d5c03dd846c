/** Branch names to put in advice (a detached HEAD: which branch to switch to). Read-only. */
import { runGit, splitLines } from '../running/exec.js';

/** Whether `name` is a local branch. */
export async function isLocalBranch(repo: string, name: string): Promise<boolean> {
  return (await runGit(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${name}`])).code === 0;
}

/** The local branches whose tip is the commit HEAD is at (none when git fails). */
export async function branchesAtHead(repo: string): Promise<string[]> {
  const run = await runGit(repo, ['for-each-ref', '--points-at', 'HEAD', '--format=%(refname:short)', 'refs/heads/']);
  return run.code === 0
    ? splitLines(run.stdout)
        .map((l) => l.trim())
        .filter((l) => l !== '')
    : [];
}
