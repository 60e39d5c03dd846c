/**
 * Committing a candidate's work: whatever the agent left in its worktree becomes a commit on the
 * candidate's branch (HEAD reclaimed first if the agent moved it), the kept ref moves to it, and
 * once scored the commit is reworded with its score. Nothing an agent wrote is ever left uncommitted.
 */
import { rewordHead } from '../git/checkpoint.js';
import { commitAll, reclaimHead } from '../git/commit.js';
import { updateOwnRef } from '../git/refs.js';
import { resolveCommit } from '../git/repo.js';
import { type LoopState } from './loop-state.js';
import type { LoopContext } from './iteration.js';

/**
 * Commits whatever is in the worktree (never the setup files) and moves the candidate's ref
 * to it. An agent may also commit by itself: HEAD is the truth, not what bestof committed —
 * as long as it is the candidate's branch and builds on the last kept commit (`reclaimHead`).
 */
export async function commitWork(
  ctx: Pick<LoopContext, 'plan' | 'candidate' | 'emit' | 'setupPaths'>,
  state: LoopState,
  label: string,
  branchesBefore?: ReadonlyMap<string, string>,
): Promise<{ state: LoopState; changed: boolean }> {
  const { plan, candidate } = ctx;
  const kept = state.head ?? plan.baseCommit;
  const head = await reclaimHead(candidate.worktree, { branch: candidate.branch, kept, ...(branchesBefore ? { branchesBefore } : {}) });
  if (head.headWas !== undefined || head.rewound) {
    const what = [
      head.headWas !== undefined ? `its agent had moved HEAD (${head.headWas}); bestof put HEAD back on ${candidate.branch}` : '',
      head.rewound ? `its branch had lost the last kept commit ${kept.slice(0, 12)}; bestof set it back and commits the agent's files on top` : '',
      head.branchRestored ? `${head.branchRestored} was moved back where it was` : '',
    ].filter(Boolean);
    ctx.emit({ type: 'run.warning', candidate: candidate.id, message: `${candidate.id}: ${what.join('; ')}` });
  }
  const committed = await commitAll(candidate.worktree, { message: `bestof: ${candidate.id} ${label}`, excludePaths: [...ctx.setupPaths] });
  const now = committed.commit ?? (await resolveCommit(candidate.worktree, 'HEAD'));
  if (!now || now === kept) return { state, changed: false };
  await keepCommit(ctx, now);
  ctx.emit({ type: 'candidate.committed', candidate: candidate.id, iteration: state.iteration, commit: now, changedFiles: committed.commit ? committed.changedFiles : 0 });
  return { state: { ...state, head: now, headIsOurs: committed.commit !== undefined }, changed: true };
}

/**
 * Moves the candidate's kept ref to `commit`. A ref planted in its way (only possible without
 * the sandbox) is removed and reported: it cannot make the candidate's work unreachable.
 */
async function keepCommit(ctx: Pick<LoopContext, 'plan' | 'candidate' | 'emit'>, commit: string): Promise<void> {
  const removed = await updateOwnRef(ctx.plan.repoRoot, ctx.candidate.ref, commit);
  if (removed.length > 0) {
    ctx.emit({ type: 'run.warning', candidate: ctx.candidate.id, message: `${ctx.candidate.id}: refs planted in the way of its kept ref were removed (${removed.join(', ')}); an agent wrote into bestof's refs` });
  }
}

/** The iteration's commit says its score, when bestof made it (an agent's own commit is left alone). */
export async function rewordWithScore(ctx: Pick<LoopContext, 'plan' | 'candidate' | 'emit'>, state: LoopState): Promise<LoopState> {
  if (!state.head || !state.headIsOurs) return state;
  const { candidate } = ctx;
  const head = await rewordHead(candidate.worktree, `bestof: ${candidate.id} iteration ${state.iteration}, score ${state.lastScore}`);
  await keepCommit(ctx, head);
  return { ...state, head };
}
