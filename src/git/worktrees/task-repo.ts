/**
 * The repos `bestof bench` runs its trials in (src/bench/run-trial.ts): a plain folder made into
 * a git repo of its own, or a clone of the team's repo at the task's base, so that the trials'
 * branches and run folders never land in the team's own checkout.
 */
import { cp, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { gitOut } from '../running/exec.js';

/** A new repo at `dir` holding a copy of `folder`'s files in one commit; returns the commit. */
export async function repoFromFolder(folder: string, dir: string, message: string): Promise<string> {
  await cp(folder, dir, { recursive: true });
  await gitOut(dir, ['init', '-q', '-b', 'main']);
  await gitOut(dir, ['add', '-A']);
  await gitOut(dir, ['-c', 'user.name=bestof bench', '-c', 'user.email=bench@bestof.invalid', 'commit', '-q', '--no-verify', '-m', message]);
  return headCommit(dir);
}

/**
 * A clone of the repo holding `source` at `dir`, checked out (detached) at `rev` as `source`
 * resolves it. `--shared`: the clone borrows the source's objects, nothing is copied.
 */
export async function cloneAt(source: string, rev: string, dir: string): Promise<string> {
  const top = (await gitOut(source, ['rev-parse', '--show-toplevel'])).trim();
  const commit = (await gitOut(top, ['rev-parse', '--verify', `${rev}^{commit}`])).trim();
  await mkdir(dirname(dir), { recursive: true });
  await gitOut(dirname(dir), ['clone', '-q', '--shared', '--no-checkout', top, dir]);
  await gitOut(dir, ['-c', 'advice.detachedHead=false', 'checkout', '-q', '--detach', commit]);
  return commit;
}

export async function headCommit(dir: string): Promise<string> {
  return (await gitOut(dir, ['rev-parse', 'HEAD'])).trim();
}
