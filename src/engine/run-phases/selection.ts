/** Selection: rank every candidate by its final score and the spec's tie-breaks, and name the winner (src/engine/select.ts). */
import type { RunContext } from '../run-context.js';
import { rankCandidates } from '../select.js';

export async function selection(ctx: RunContext): Promise<void> {
  const { spec, maxScore } = ctx.plan;
  const state = ctx.state();
  const ranking = rankCandidates(
    state.order.map((id) => state.candidates[id]).filter((c) => c !== undefined),
    { minScore: spec.select.min_score, tieBreak: spec.select.tie_break },
  );
  const best = ranking[0];
  const winner = best?.eligible ? best.candidate : undefined;
  ctx.emit({
    type: 'selection.finished',
    ranking,
    winner,
    message: winner
      ? `${winner} wins with ${best?.score} of ${maxScore} points`
      : `no candidate can win: ${ranking.map((r) => `${r.candidate} ${r.reason ?? ''}`.trim()).join('; ') || 'no candidates'}`,
  });
}
