/**
 * Merge: what happens to the winner, as `[select] merge` says (src/engine/merge-policy.ts).
 * Nothing to do without a winner. What is merged is the winner's scored commit by sha; the
 * protected paths it changed (read from git again here, not from the record) are reverted in
 * a commit of bestof's first.
 */
import { applyMergePolicy } from '../merge-policy.js';
import type { RunContext } from '../run-context.js';
import { protectedChanges } from './selection.js';

export async function merge(ctx: RunContext): Promise<void> {
  const { plan } = ctx;
  const state = ctx.state();
  const winner = state.winner;
  const candidate = plan.candidates.find((c) => c.id === winner);
  const scored = winner ? state.candidates[winner]?.commit : undefined;
  if (!winner || !candidate || !scored) return;
  const mode = plan.spec.select.merge;
  const revert = await protectedChanges(plan.repoRoot, { base: plan.baseCommit, commit: scored, frozen: plan.spec.checks.frozen, editable: plan.spec.checks.editable });
  const merged = await applyMergePolicy({
    repoRoot: plan.repoRoot,
    mode,
    runId: plan.runId,
    candidate: winner,
    label: candidate.label,
    branch: candidate.branch,
    commit: scored,
    baseCommit: plan.baseCommit,
    keptRef: candidate.ref,
    revert,
    into: plan.into,
  });
  ctx.emit({ type: 'merge.finished', candidate: winner, mode, branch: candidate.branch, ok: merged.ok, ...(merged.commit ? { commit: merged.commit } : {}), message: merged.message });
}
