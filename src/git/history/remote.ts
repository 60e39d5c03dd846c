/** Publishing a branch to the repository's `origin` (for merge = "pr"), and what validate reads of it before a run. */
import { err, ok, type Result } from '../../result.js';
import { gitMessage, runGit } from '../running/exec.js';

export interface PushBranchOptions {
  readonly signal?: AbortSignal | undefined;
}

/**
 * `git push --set-upstream origin <branch>`. A refusal (no `origin`, no access, rejected) is an
 * error naming the branch; like every src/git call it rejects with an AbortError when aborted.
 */
export async function pushBranch(repo: string, branch: string, opts: PushBranchOptions = {}): Promise<Result<void>> {
  // The full ref on both sides: the short name of refs/heads/bestof/<run>/c1 is ambiguous with refs/bestof/<run>/c1.
  const run = await runGit(repo, ['push', '--set-upstream', 'origin', `refs/heads/${branch}:refs/heads/${branch}`], { signal: opts.signal });
  if (run.code !== 0) return err(`git push of ${branch} to origin failed: ${gitMessage(run.stderr || run.stdout)}`);
  return ok();
}

/** The URL of remote `name`, or undefined when the repository has no such remote. Reads the config only (no network). */
export async function remoteUrl(repo: string, name: string, opts: PushBranchOptions = {}): Promise<string | undefined> {
  const run = await runGit(repo, ['remote', 'get-url', '--', name], { signal: opts.signal });
  const url = run.stdout.trim();
  return run.code === 0 && url !== '' ? url : undefined;
}

/** The host of a remote URL (`https://github.com/o/r.git`, `git@github.com:o/r.git`, `ssh://git@host:22/o/r`), when it has one. */
export function remoteHost(url: string): string | undefined {
  const scp = /^[^/@:]+@([^/:]+):/.exec(url);
  if (scp) return scp[1];
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'file:' || parsed.hostname === '' ? undefined : parsed.hostname;
  } catch {
    return undefined;
  }
}
