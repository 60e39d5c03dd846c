/**
 * What happens to the winner: merged into the checked-out branch (merge, squash, ff), left
 * on its branch (branch, none), or proposed as a pull request (pr, through `gh`). The
 * interactive compare view calls the same function when the user picks another winner.
 *
 * What is merged is the commit that was scored, by sha, never whatever a name points at now.
 * When the winner changed protected paths (frozen ones, with `select.allow_tampered`, or
 * paths outside `[checks] editable`), bestof first makes a commit of its own on top of the
 * scored one that puts them back as in base, and that commit is what reaches the user: merged,
 * or (branch, pr, none) the winner's branch moved onto it. It is kept at
 * refs/bestof/<run>/<candidate>/reverted.
 *
 * Before a merge into `into`, the caller's check (`checkMerge`, ./merge-check.ts) may refuse it: the
 * branch moved past `base`, and the merge's result fails a check the winner passed.
 */
import type { TamperedPath } from '../../checks/frozen.js';
import { mergeWinner } from '../../git/history/merge.js';
import { refCommit, swapRef, updateRef } from '../../git/history/refs.js';
import { besideKeptRef } from '../workspace/candidate-refs.js';
import { pushBranch } from '../../git/history/remote.js';
import { revertPathsCommit } from '../../git/history/tree.js';
import { runProcess } from '../../process/run-process.js';
import type { MergeMode } from '../../spec/schema.js';
import type { MergeOnto } from '../record/events.js';
import { findOnPath } from '../../process/find-on-path.js';
import { listFew } from '../words.js';

export interface MergeRequest {
  readonly repoRoot: string;
  readonly mode: MergeMode;
  readonly runId: string;
  readonly candidate: string;
  readonly label: string;
  readonly branch: string;
  /** The winner's scored commit (full sha): what is merged, whatever the branch says now. */
  readonly commit: string;
  /** The run's base commit: protected paths are put back as it has them. */
  readonly baseCommit: string;
  /** The winner's kept ref (refs/bestof/<run>/<candidate>/kept); bestof's revert commit is kept beside it. */
  readonly keptRef: string;
  /** Protected paths the winner changed; they are reverted before anything reaches the user. @default [] */
  readonly revert?: readonly TamperedPath[];
  readonly into: string | undefined;
  /**
   * merge, squash, ff: asked with the commit to merge before `into` is touched (./merge-check.ts):
   * where `into` is, and, when it moved past `base`, whether the merge's result passes the checks
   * the winner passed. A refusal leaves `into` where it is. @default no check: merged onto any tip
   */
  readonly checkMerge?: (toMerge: string) => Promise<MergeCheck>;
  readonly signal?: AbortSignal;
}

/** What the check before a merge found: where `into` is, and a refusal, or a note for the outcome's message. */
export interface MergeCheck {
  readonly onto?: MergeOnto;
  /** Said instead of merging: the result fails a check the winner passed, or could not be checked. */
  readonly refusal?: string;
  /** Said after the merge: `into` had moved, and how the result scored. */
  readonly note?: string;
}

export interface MergeOutcome {
  readonly ok: boolean;
  readonly commit?: string;
  readonly message: string;
  /** merge, squash, ff with a check: `into`'s tip, and the result's score when it had moved. */
  readonly onto?: MergeOnto;
}

/** Where bestof's revert commit is kept: beside the kept ref, under refs/bestof/<run>/. */
export function revertedRef(keptRef: string): string {
  return besideKeptRef(keptRef, 'reverted');
}

const MAX_LISTED = 5;

/** What bestof's commit reverts, in words: "frozen paths test/a.js; paths outside [checks] editable: x.txt". */
export function describeReverted(revert: readonly TamperedPath[]): string {
  const frozen = revert.filter((p) => (p.rule ?? 'frozen') === 'frozen').map((p) => p.path);
  const outside = revert.filter((p) => p.rule === 'editable').map((p) => p.path);
  return [
    ...(frozen.length > 0 ? [`frozen paths ${listFew(frozen, MAX_LISTED)}`] : []),
    ...(outside.length > 0 ? [`paths outside [checks] editable ${listFew(outside, MAX_LISTED)}`] : []),
  ].join(' and ');
}

interface ToMerge {
  /** The sha that reaches the user. */
  readonly commit: string;
  /** Said after the outcome, when bestof reverted something. */
  readonly note: string;
  /** Lines for the merge commit's body. */
  readonly body: string;
}

/** The scored commit, or bestof's commit on top of it that reverts the protected paths. */
async function commitToMerge(request: MergeRequest): Promise<{ ok: true; value: ToMerge } | { ok: false; message: string }> {
  const revert = request.revert ?? [];
  const scored = `Branch ${request.branch} at ${request.commit.slice(0, 10)} (the scored commit).`;
  if (revert.length === 0) return { ok: true, value: { commit: request.commit, note: '', body: scored } };
  const what = describeReverted(revert);
  const made = await revertPathsCommit(request.repoRoot, {
    base: request.baseCommit,
    commit: request.commit,
    paths: [...new Set(revert.map((p) => p.path))],
    message: `bestof: revert ${request.candidate}'s changes to protected paths (run ${request.runId})\n\nPut back as in base ${request.baseCommit.slice(0, 10)}: ${what}.`,
    signal: request.signal,
  });
  if (!made.ok) return { ok: false, message: `${made.error}; nothing was merged; the winner's work is on branch ${request.branch}` };
  if (made.value === request.commit) return { ok: true, value: { commit: request.commit, note: '', body: scored } };
  const kept = revertedRef(request.keptRef);
  await updateRef(request.repoRoot, kept, made.value);
  const note = `bestof's commit ${made.value.slice(0, 10)} (kept at ${kept}) reverted ${what} on top of the scored commit`;
  return { ok: true, value: { commit: made.value, note, body: `${scored}\nbestof's commit ${made.value.slice(0, 10)} on top reverts ${what}.` } };
}

/** branch, pr, none: the winner's branch moves onto bestof's revert commit, if it still is at the scored commit. */
async function branchOntoRevert(request: MergeRequest, target: ToMerge): Promise<string> {
  if (target.commit === request.commit) return '';
  const ref = `refs/heads/${request.branch}`;
  const moved = await swapRef(request.repoRoot, ref, target.commit, await refCommit(request.repoRoot, ref));
  return moved.ok ? `; ${target.note}, and branch ${request.branch} now ends with it` : `; ${target.note}, but ${moved.error}`;
}

/** The subject of bestof's merge or squash commit (a resumed run looks for it: src/git/history/merge.ts findEarlierMerge). */
export function mergeTitle(request: Pick<MergeRequest, 'candidate' | 'label' | 'runId'>): string {
  return `bestof: ${request.candidate} (${request.label}) wins run ${request.runId}`;
}

export async function applyMergePolicy(request: MergeRequest): Promise<MergeOutcome> {
  const { mode, branch } = request;
  const title = mergeTitle(request);
  const target = await commitToMerge(request);
  if (!target.ok) return { ok: false, message: target.message };
  switch (mode) {
    case 'none':
      return { ok: true, message: `merge = "none": nothing merged; the winner's work is on branch ${branch}${await branchOntoRevert(request, target.value)}` };
    case 'branch':
      return {
        ok: true,
        message: `the winner's work is on branch ${branch} (merge it with \`git merge ${branch}\`)${await branchOntoRevert(request, target.value)}`,
      };
    case 'merge':
    case 'squash':
    case 'ff':
      if (!request.into) return { ok: false, message: `no branch to merge into; the winner's work is on branch ${branch}` };
      return mergeChecked({ ...request, mode, into: request.into }, target.value, title);
    case 'pr': {
      const moved = await branchOntoRevert(request, target.value);
      const opened = await openPullRequest(request, title);
      return { ...opened, message: `${opened.message}${moved}` };
    }
    default: {
      const unreachable: never = mode;
      return unreachable;
    }
  }
}

/** How often a merge is checked again when `into` moved once more while it was being checked (another run merged meanwhile). */
const MERGE_CHECK_ATTEMPTS = 3;

/**
 * merge, squash, ff into `into`: the caller's check first (`checkMerge`), then the merge onto the
 * tip that was checked. A merge that finds `into` moved since is checked again on the new tip: two
 * runs ending together take turns, each checked on what the other left.
 */
async function mergeChecked(
  request: MergeRequest & { readonly mode: 'merge' | 'squash' | 'ff'; readonly into: string },
  target: ToMerge,
  title: string,
): Promise<MergeOutcome> {
  const { mode, branch, into } = request;
  const { commit: toMerge, note, body } = target;
  for (let attempt = 1; ; attempt++) {
    const check = await request.checkMerge?.(toMerge);
    const onto = check?.onto ? { onto: check.onto } : {};
    if (check?.refusal !== undefined) return { ok: false, message: check.refusal, ...onto };
    const merged = await mergeWinner(request.repoRoot, {
      mode,
      commit: toMerge,
      branch,
      ...(toMerge === request.commit ? {} : { byHand: revertedRef(request.keptRef) }),
      into,
      message: `${title}\n\n${body}`,
      ...(check?.onto ? { onto: check.onto.tip } : {}),
      signal: request.signal,
    });
    if (!merged.ok && merged.error.reason === 'moved' && attempt < MERGE_CHECK_ATTEMPTS) continue;
    if (!merged.ok) return { ok: false, message: merged.error.message, ...onto };
    const { commit } = merged.value;
    const notes = [note, check?.note]
      .filter(Boolean)
      .map((n) => `; ${n}`)
      .join('');
    return { ok: true, commit, message: `merged ${branch} (${toMerge.slice(0, 10)}) into ${into} (${mode}) as ${commit.slice(0, 10)}${notes}`, ...onto };
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
