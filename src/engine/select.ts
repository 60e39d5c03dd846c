/**
 * Selection: rank every candidate by its final frozen score, then by the spec's
 * `tie_break` list, and choose the best eligible one. Pure: the same inputs always give
 * the same ranking, and the candidate index breaks any remaining tie.
 */
import type { TieBreak } from '../spec/schema.js';
import type { CandidateState } from './run-state.js';

export interface RankEntry {
  readonly candidate: string;
  readonly rank: number;
  readonly score: number;
  readonly maxScore: number;
  readonly costUsd: number;
  readonly diffSize: number;
  readonly durationMs: number;
  readonly iterations: number;
  readonly eligible: boolean;
  /** Why an ineligible candidate cannot win. */
  readonly reason?: string;
}

export interface SelectionPolicy {
  readonly minScore: number;
  readonly tieBreak: readonly TieBreak[];
}

/**
 * Why a candidate cannot win, or undefined when it can. A candidate must have committed
 * work, reach `min_score`, and (when the spec has checks) pass at least one of them:
 * a winner that fails every check would be chosen by the tie-break alone.
 */
export function ineligibility(c: CandidateState, policy: SelectionPolicy): string | undefined {
  if (c.status === 'failed' && c.reason === 'setup_failed') return 'setup failed';
  if (c.status === 'cancelled') return 'cancelled';
  if (c.diff.files === 0) return 'made no changes';
  if (c.score === undefined) return 'not scored';
  if (c.score < policy.minScore) return `score ${c.score} is below min_score ${policy.minScore}`;
  if (c.maxScore > 0 && c.score === 0) return 'passed no check';
  return undefined;
}

const diffSize = (c: CandidateState): number => c.diff.insertions + c.diff.deletions;

/** Lower sorts first. */
function compareBy(key: TieBreak, a: CandidateState, b: CandidateState): number {
  switch (key) {
    case 'score':
      return (b.score ?? -1) - (a.score ?? -1);
    case 'cost':
      return a.costUsd - b.costUsd;
    case 'diff_size':
      return diffSize(a) - diffSize(b);
    case 'duration':
      return a.durationMs - b.durationMs;
    case 'iterations':
      return a.iteration - b.iteration;
    case 'votes':
      return 0; // votes join the ranking with cross-review; until then they never separate two candidates
    default: {
      const unreachable: never = key;
      return unreachable;
    }
  }
}

export function rankCandidates(candidates: readonly CandidateState[], policy: SelectionPolicy): RankEntry[] {
  const keys: TieBreak[] = ['score', ...policy.tieBreak.filter((k) => k !== 'score')];
  const withEligibility = candidates.map((c) => ({ c, reason: ineligibility(c, policy) }));
  withEligibility.sort((x, y) => {
    if ((x.reason === undefined) !== (y.reason === undefined)) return x.reason === undefined ? -1 : 1;
    for (const key of keys) {
      const order = compareBy(key, x.c, y.c);
      if (order !== 0) return order;
    }
    return x.c.index - y.c.index;
  });
  return withEligibility.map(({ c, reason }, i) => ({
    candidate: c.id,
    rank: i + 1,
    score: c.score ?? 0,
    maxScore: c.maxScore,
    costUsd: c.costUsd,
    diffSize: diffSize(c),
    durationMs: c.durationMs,
    iterations: c.iteration,
    eligible: reason === undefined,
    ...(reason === undefined ? {} : { reason }),
  }));
}
