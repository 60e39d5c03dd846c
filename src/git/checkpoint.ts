/**
 * Git steps of the candidate loop that the first round did not need: rewording an
 * iteration's commit once its score is known, and putting a worktree back on an existing
 * branch when a run is resumed.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { err, ok, type Result } from '../result.js';
import { gitMessage, gitOut, identityArgs, runGit } from './exec.js';

/** Rewrites the message of HEAD (the tree is unchanged) and returns the new commit. */
export async function rewordHead(worktree: string, message: string): Promise<string> {
  const identity = await identityArgs(worktree);
  await gitOut(worktree, [...identity, 'commit', '--amend', '--quiet', '--no-verify', '--no-gpg-sign', '--allow-empty', '--only', '-m', message]);
  return (await gitOut(worktree, ['rev-parse', 'HEAD'])).trim();
}

/**
 * Makes sure the candidate's worktree exists on its branch: `reused` when the folder is still
 * a worktree of the repo (a run killed with SIGKILL leaves it, maybe with uncommitted work),
 * `recreated` from the branch otherwise.
 */
export async function reattachWorktree(repo: string, path: string, branch: string): Promise<Result<'reused' | 'recreated'>> {
  const abs = resolve(path);
  if (existsSync(abs)) {
    // The full ref name: the short one is ambiguous with refs/bestof/<run>/<candidate>.
    const head = await runGit(abs, ['symbolic-ref', '--quiet', 'HEAD']);
    if (head.code === 0 && head.stdout.trim() === `refs/heads/${branch}`) return ok('reused');
    return err(`${abs} exists but is not the worktree of ${branch}; move it away and resume again`);
  }
  await runGit(repo, ['worktree', 'prune']);
  await mkdir(dirname(abs), { recursive: true });
  const run = await runGit(repo, ['worktree', 'add', '--quiet', abs, branch]);
  if (run.code !== 0) return err(`cannot recreate worktree ${abs} on ${branch}: ${gitMessage(run.stderr || run.stdout)}`);
  return ok('recreated');
}
