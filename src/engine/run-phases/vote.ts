/**
 * Vote: cross-review and the anonymous vote between final scoring and selection (`[vote]`).
 * Not built yet: the spec language validates, and this phase is where the vote will emit its
 * ballots so that selection can weigh them. Until then it does nothing, and the `votes`
 * tie-break never separates two candidates.
 */
import type { RunContext } from '../run-context.js';

export async function vote(_ctx: RunContext): Promise<void> {
  // Intentionally empty: see the module comment.
}
