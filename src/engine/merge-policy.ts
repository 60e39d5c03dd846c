/**
 * What happens to the winner: merged into the checked-out branch (merge, squash, ff), left
 * on its branch (branch, none), or proposed as a pull request (pr, through `gh`). The
 * interactive compare view calls the same function when the user picks another winner.
 */
import { mergeWinner } from '../git/merge.js';
import { pushBranch } from '../git/remote.js';
import { runProcess } from '../process/run-process.js';
import type { MergeMode } from '../spec/schema.js';
import { findOnPath } from '../process/find-on-path.js';

export interface MergeRequest {
  readonly repoRoot: string;
  readonly mode: MergeMode;
  readonly runId: string;
  readonly candidate: string;
  readonly label: string;
  readonly branch: string;
  readonly into: string | undefined;
  readonly signal?: AbortSignal;
}

export interface MergeOutcome {
  readonly ok: boolean;
  readonly commit?: string;
  readonly message: string;
}

export async function applyMergePolicy(request: MergeRequest): Promise<MergeOutcome> {
  const { mode, branch } = request;
  const title = `bestof: ${request.candidate} (${request.label}) wins run ${request.runId}`;
  switch (mode) {
    case 'none':
      return { ok: true, message: `merge = "none": nothing merged; the winner's work is on branch ${branch}` };
    case 'branch':
      return { ok: true, message: `the winner's work is on branch ${branch} (merge it with \`git merge ${branch}\`)` };
    case 'merge':
    case 'squash':
    case 'ff': {
      if (!request.into) return { ok: false, message: `no branch to merge into; the winner's work is on branch ${branch}` };
      const merged = await mergeWinner(request.repoRoot, { mode, branch, into: request.into, message: title, signal: request.signal });
      if (!merged.ok) return { ok: false, message: merged.error.message };
      const { commit } = merged.value;
      return { ok: true, commit, message: `merged ${branch} into ${request.into} (${mode}) as ${commit.slice(0, 10)}` };
    }
    case 'pr':
      return openPullRequest(request, title);
    default: {
      const unreachable: never = mode;
      return unreachable;
    }
  }
}

async function openPullRequest(request: MergeRequest, title: string): Promise<MergeOutcome> {
  const { branch } = request;
  if (!(await findOnPath('gh'))) {
    return {
      ok: false,
      message: `merge = "pr" needs the GitHub CLI \`gh\`, which is not on PATH: install it (https://cli.github.com) and run \`gh auth login\`; the winner's work is on branch ${branch}`,
    };
  }
  const pushed = await pushBranch(request.repoRoot, branch, { signal: request.signal });
  if (!pushed.ok) return { ok: false, message: `${pushed.error}; the winner's work is on branch ${branch}` };
  const env = { ...process.env };
  const args = ['pr', 'create', '--head', branch, '--title', title, '--body', `Chosen by bestof run ${request.runId}.`];
  if (request.into) args.push('--base', request.into);
  const pr = await runProcess('gh', args, { cwd: request.repoRoot, env, signal: request.signal });
  if (!pr.ok) return { ok: false, message: `gh pr create failed: ${pr.stderr.trim().split('\n').pop() ?? ''}; the winner's work is on branch ${branch}` };
  return { ok: true, message: `opened a pull request: ${pr.stdout.trim().split('\n').pop() ?? ''}` };
}
