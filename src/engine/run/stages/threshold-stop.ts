/**
 * `[select] stop_others = "on_threshold"`: when a candidate's loop ends with `threshold_reached`
 * and the candidate could win, the others start no new iteration (../../loop/others-stop.ts).
 *
 * "Could win" is the selection's own rule (../../select/select.ts ineligibility, with the spec's
 * policy and what git says of its commit), asked of the candidate as its loop left it. Nothing is
 * put back here, unlike selection's verifyRefs: a kept ref or branch that no longer points at its
 * scored commit simply does not stop the others, and the selection deals with it as ever.
 */
import { refCommits } from '../../../git/history/refs.js';
import { OthersStop } from '../../loop/others-stop.js';
import type { CandidatePlan } from '../../plan/plan.js';
import { ineligibility, type CandidateEvidence } from '../../select/select.js';
import type { RunContext } from '../run-context.js';
import { FINISHED_STATUSES } from './prepare.js';
import { protectedEvidence, selectionPolicy } from './selection.js';

/** The run's flag when the spec asks for it; on resume, set already if the record says a candidate reached the threshold. */
export function createOthersStop(ctx: Pick<RunContext, 'plan' | 'resume'>): OthersStop | undefined {
  if (ctx.plan.spec.select.stop_others !== 'on_threshold') return undefined;
  const before = ctx.resume?.stoppingOthers;
  return new OthersStop(before ? { candidate: before.candidate, score: before.score } : undefined);
}

/**
 * After a candidate's loop ended: when it reached the threshold first and could win, the flag is
 * set and run.stopping_others names the candidates still running.
 */
export async function stopOthersOnThreshold(ctx: RunContext, flag: OthersStop, candidate: CandidatePlan): Promise<void> {
  const c = ctx.state().candidates[candidate.id];
  if (c?.reason !== 'threshold_reached' || flag.by) return;
  let evidence: CandidateEvidence;
  try {
    evidence = c.commit ? await evidenceAsLeft(ctx, candidate, c.commit) : {};
  } catch (error) {
    // Git could not say: the others go on, as without the key; the candidate's own end stands.
    ctx.emit({
      type: 'run.warning',
      candidate: c.id,
      message: `reached the threshold, but git could not tell whether it can win (${(error as Error).message}): the other candidates go on`,
    });
    return;
  }
  if (ineligibility(c, selectionPolicy(ctx.plan.spec), evidence) !== undefined) return;
  const state = ctx.state();
  const stopping = state.order.filter(
    (id) => id !== c.id && !FINISHED_STATUSES.has(state.candidates[id]?.status ?? '') && state.candidates[id]?.status !== 'cancelled',
  );
  // The last one to end stops no one: the record says nothing (nor that it was first).
  if (stopping.length === 0 || !flag.reach({ candidate: c.id, score: c.score ?? 0 })) return;
  ctx.emit({ type: 'run.stopping_others', candidate: c.id, score: c.score ?? 0, stopping });
}

async function evidenceAsLeft(ctx: RunContext, candidate: CandidatePlan, commit: string): Promise<CandidateEvidence> {
  const [refAt, branchAt] = await refCommits(ctx.plan.repoRoot, [candidate.ref, `refs/heads/${candidate.branch}`]);
  if (refAt !== commit || (branchAt !== undefined && branchAt !== commit)) return { untrusted: 'its kept ref or branch moved since it was scored' };
  return protectedEvidence(ctx, { commit });
}
