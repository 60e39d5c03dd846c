/** Merge: what happens to the winner, as `[select] merge` says (src/engine/merge-policy.ts). Nothing to do without a winner. */
import { applyMergePolicy } from '../merge-policy.js';
import type { RunContext } from '../run-context.js';

export async function merge(ctx: RunContext): Promise<void> {
  const { plan } = ctx;
  const winner = ctx.state().winner;
  const candidate = plan.candidates.find((c) => c.id === winner);
  if (!winner || !candidate) return;
  const mode = plan.spec.select.merge;
  const merged = await applyMergePolicy({
    repoRoot: plan.repoRoot,
    mode,
    runId: plan.runId,
    candidate: winner,
    label: candidate.label,
    branch: candidate.branch,
    into: plan.into,
  });
  ctx.emit({ type: 'merge.finished', candidate: winner, mode, branch: candidate.branch, ok: merged.ok, ...(merged.commit ? { commit: merged.commit } : {}), message: merged.message });
}
