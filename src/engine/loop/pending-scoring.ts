/**
 * A resumed candidate whose last iteration was paid for but never scored: its agent finished and
 * its work was committed, then the run stopped (Ctrl-C, a closed terminal, kill -9) while the
 * checks ran. Calling the agent again would pay twice for work already done (with real agents,
 * real money) and throw that work's outcome away; `bestof resume` scores that commit as that
 * iteration instead, and the loop goes on from its score.
 *
 * An iteration whose agent did not finish (cancelled, or a stop its outcome asked for, such as
 * auth_error) is not pending: what it wrote is kept (committed on resume, as always), and the
 * agent is called again for that iteration.
 */
import type { IterationState } from '../record/run-state.js';
import type { Outcome } from '../../providers/types.js';
import { OUTCOME_POLICY } from './outcome-policy.js';

/** The recorded iteration to score on resume, and the commit the one before it was scored on. */
export interface PendingIteration {
  readonly iteration: number;
  readonly outcome: Outcome;
  readonly message: string | undefined;
  /** The last scored iteration's commit: the pending one changed something when the head is not it. */
  readonly previousCommit: string | undefined;
}

/** The last recorded iteration when its agent's call ended in an outcome that goes on to the checks, and no score was recorded for it. */
export function pendingIteration(iterations: readonly IterationState[]): PendingIteration | undefined {
  const last = [...iterations].sort((a, b) => a.iteration - b.iteration).at(-1);
  if (!last || last.score !== undefined || last.outcome === undefined) return undefined;
  const call = OUTCOME_POLICY[last.outcome].call.kind;
  if (call !== 'proceed' && call !== 'proceed_unless_out_of_time') return undefined;
  const scored = iterations.filter((it) => it.score !== undefined && it.iteration < last.iteration).sort((a, b) => a.iteration - b.iteration);
  return { iteration: last.iteration, outcome: last.outcome, message: last.providerMessage, previousCommit: scored.at(-1)?.commit };
}
