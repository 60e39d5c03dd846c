/**
 * The repos `bestof bench` runs its trials in (src/bench/run-trial.ts): a plain folder made into
 * a git repo of its own, a clone of the team's repo at the task's base, or a repo of base's history
 * alone (`history = "base"`), so that the trials' branches and run folders never land in the team's
 * own checkout.
 */
import { cp, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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

/**
 * A repo at `dir` holding ONLY the objects reachable from `rev` (as `source` resolves it), checked
 * out (detached) there: a mined task's base, whose fix and tests are later commits of the same
 * repo. No alternates, no shared objects: `pack-objects --revs` writes one complete (not thin)
 * pack of `rev`'s history straight into the new repo's pack folder, index beside it, so that no
 * later commit is in any object store an agent of the task can read.
 */
export async function repoAtBase(source: string, rev: string, dir: string): Promise<string> {
  const top = await sourceTop(source);
  const commit = (await gitOut(top, ['rev-parse', '--verify', `${rev}^{commit}`])).trim();
  await mkdir(dir, { recursive: true });
  await gitOut(dir, ['init', '-q', '-b', 'main']);
  const packDir = (await gitOut(dir, ['rev-parse', '--path-format=absolute', '--git-path', 'objects/pack'])).trim();
  await gitOut(top, ['pack-objects', '--revs', '-q', join(packDir, 'pack')], { input: `${commit}\n` });
  await gitOut(dir, ['update-ref', 'refs/heads/main', commit]);
  await gitOut(dir, ['-c', 'advice.detachedHead=false', 'checkout', '-q', '--detach', commit]);
  return commit;
}

/** The top folder of the repo holding `source` (the team's checkout). */
export async function sourceTop(source: string): Promise<string> {
  return (await gitOut(source, ['rev-parse', '--show-toplevel'])).trim();
}

export async function headCommit(dir: string): Promise<string> {
  return (await gitOut(dir, ['rev-parse', 'HEAD'])).trim();
}
