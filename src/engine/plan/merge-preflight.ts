/**
 * What the merge at the end of a run needs, checked before the run creates anything (by
 * `validate`, `run` and `resume`, through src/cli/plan-or-explain.ts): a merge that can only
 * fail after every agent has run and spent money is bad input, said at the start.
 *
 * - merge, squash, ff merge in the user's checkout: the branch merged into must be the one
 *   checked out. On a detached HEAD there is one way out, said once: check the branch out.
 * - pr pushes the winner's branch to `origin` and opens the pull request with `gh`: `gh` must
 *   be on PATH, the repository must have an `origin`, and `gh auth status` must say it is
 *   logged in. Nothing here calls the network on its own: `gh auth status` is gh's own check.
 */
// What only a detached HEAD or merge = "pr" needs is loaded there: the planner imports this file
// for every spec, and `bestof validate` should not pay for what its spec does not ask.
import type { Env } from '../../env.js';
import type { MergeMode } from '../../spec/schema.js';

/** The remote merge = "pr" pushes to (src/git/history/remote.ts pushBranch). */
export const PR_REMOTE = 'origin';
/** `gh auth status` answers from its config at once; one that hangs (a prompt, a network stall) is not waited for. */
const GH_AUTH_TIMEOUT_MS = 15_000;

export interface MergeTarget {
  readonly mode: MergeMode;
  /** `select.into` as the spec has it (undefined: the checked-out branch). */
  readonly into: string | undefined;
  /** The checked-out branch; undefined on a detached HEAD. */
  readonly checkedOut: string | undefined;
  /** A branch to name in the advice when the spec names none (one at the detached commit, say). */
  readonly suggested?: string | undefined;
}

/** What is wrong with the branch the winner goes into, with the one thing to do about it; undefined when nothing is. */
export function mergeTargetProblem(target: MergeTarget): string | undefined {
  const { mode, into, checkedOut } = target;
  const merging = mode === 'merge' || mode === 'squash' || mode === 'ff';
  if (mode === 'pr') {
    if (into !== undefined || checkedOut !== undefined) return undefined;
    return `select.into: the repo is on a detached HEAD, so there is no checked-out branch for the pull request to go into: set \`into = "${target.suggested ?? 'main'}"\` under [select] (the pull request's base; a pull request needs no checkout)`;
  }
  if (!merging) return undefined;
  const branch = into ?? target.suggested;
  const switchTo = branch ? `\`git switch ${branch}\`` : '`git switch <branch>` (the branch the winner should be merged into)';
  if (checkedOut === undefined) {
    return (
      `select.merge = "${mode}": bestof merges the winner in your checkout, and the repo is on a detached HEAD: check out the branch to merge into, ${switchTo}, then run bestof again ` +
      `(the candidates still start from \`base\`); or, to merge by hand later, set merge = "branch"`
    );
  }
  if (into !== undefined && into !== checkedOut) {
    return `select.into: "${into}" is not the checked-out branch (${checkedOut}); bestof merges the winner in your checkout: \`git switch ${into}\` first, or remove \`into\` to merge into ${checkedOut}, or set merge = "branch"`;
  }
  return undefined;
}

/** The advice's branch on a detached HEAD: `base` when it is a branch, else a branch at HEAD, else none. */
export async function suggestedBranch(repoRoot: string, base: string): Promise<string | undefined> {
  const { branchesAtHead, isLocalBranch } = await import('../../git/history/branch-hints.js');
  if (await isLocalBranch(repoRoot, base)) return base;
  return (await branchesAtHead(repoRoot))[0];
}

export interface PullRequestReadiness {
  /** What stops the pull request; each says what to do. */
  readonly problems: readonly string[];
  /** What could not be confirmed (gh's answer did not come). */
  readonly warnings: readonly string[];
}

export interface PullRequestCheckOptions {
  /** The environment gh runs with (its PATH is where gh is looked for). @default process.env */
  readonly env?: Env;
  readonly signal?: AbortSignal;
}

/** merge = "pr": `gh` on PATH, an `origin` to push to, gh logged in (to origin's host). */
export async function pullRequestReadiness(repoRoot: string, options: PullRequestCheckOptions = {}): Promise<PullRequestReadiness> {
  const [{ remoteHost, remoteUrl }, { findOnPath }, { runProcess }] = await Promise.all([
    import('../../git/history/remote.js'),
    import('../../process/find-on-path.js'),
    import('../../process/run-process.js'),
  ]);
  const env = options.env ?? process.env;
  const problems: string[] = [];
  const warnings: string[] = [];
  const url = await remoteUrl(repoRoot, PR_REMOTE, { signal: options.signal });
  if (url === undefined) {
    problems.push(
      `select.merge = "pr" pushes the winner's branch to the remote "${PR_REMOTE}", and ${repoRoot} has no remote of that name: add it (\`git remote add ${PR_REMOTE} <url of the GitHub repository>\`), or set merge = "branch"`,
    );
  }
  const gh = await findOnPath('gh', env.PATH ?? '');
  if (gh === undefined) {
    problems.push(
      `select.merge = "pr" opens the pull request with the GitHub CLI \`gh\`, which is not on PATH: install it (https://cli.github.com), then run \`gh auth login\`; or set merge = "branch"`,
    );
    return { problems, warnings };
  }
  const host = url === undefined ? undefined : remoteHost(url);
  const status = await runProcess(gh, ['auth', 'status', ...(host ? ['--hostname', host] : [])], {
    cwd: repoRoot,
    env: { ...env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1' },
    timeoutMs: GH_AUTH_TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (status.exitCode === 0) return { problems, warnings };
  if (status.timedOut || status.exitCode === undefined) {
    warnings.push(
      `select.merge = "pr": could not confirm that gh is logged in (\`gh auth status\` ${status.timedOut ? 'did not answer' : 'did not start'}); if the pull request fails at the end, the winner stays on its branch`,
    );
    return { problems, warnings };
  }
  const said = (status.stderr.trim() || status.stdout.trim())
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  problems.push(
    `select.merge = "pr": gh is not logged in${host ? ` to ${host}` : ''} (\`gh auth status\` exited ${status.exitCode}${said ? `: ${said}` : ''}): run \`gh auth login${host && host !== 'github.com' ? ` --hostname ${host}` : ''}\`, or set merge = "branch"`,
  );
  return { problems, warnings };
}
