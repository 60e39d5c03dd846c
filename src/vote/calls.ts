/**
 * How many agent calls a vote will make, before it makes any: `[budget]` pays for voter calls
 * too, and a vote that cannot be paid for is skipped with a clear line rather than stopped
 * halfway with a degraded result. Pairwise costs grow with the square of the candidates (every
 * pair in both orders, to cancel position bias), which is the number to show before choosing it.
 */
import type { VoterView } from './order.js';
import type { VoteMethod } from './types.js';

export interface PlannedCalls {
  /** Calls if every answer parses the first time. */
  readonly expected: number;
  /** Calls if every answer needs its one second asking. */
  readonly atMost: number;
  /** Per voter, in the order of the views. */
  readonly perVoter: readonly { readonly voter: string; readonly calls: number }[];
}

export function plannedVoterCalls(views: readonly VoterView[], options: { readonly method: VoteMethod; readonly crossReview: boolean }): PlannedCalls {
  const perVoter = views.map((view) => {
    const k = view.shown.length;
    const ballots = options.method === 'pairwise' ? k * (k - 1) : k > 1 ? 1 : 0;
    const reviews = options.crossReview && k > 0 ? 1 : 0;
    return { voter: view.voter, calls: ballots + reviews };
  });
  const expected = perVoter.reduce((sum, v) => sum + v.calls, 0);
  return { expected, atMost: 2 * expected, perVoter };
}
