/** Publishing a branch to the repository's `origin` (for merge = "pr"). */
import { err, ok, type Result } from '../result.js';
import { gitMessage, runGit } from './exec.js';

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
